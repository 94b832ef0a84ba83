/**
 * Webhook signature verification for receivers. The scheme itself lives in
 * contract/webhook-signature.ts, which the server signs deliveries with, so sender and receiver
 * cannot drift apart.
 */
export * from '../contract/webhook-signature.js';
