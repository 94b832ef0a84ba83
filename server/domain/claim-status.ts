/**
 * The claim state machine (docs/design.md#claims, the Claims tag of the spec), the event each move
 * emits, and the test clearinghouse's decisions by magic `member_id`, like test card numbers. Pure:
 * the simulator that moves claims on a schedule calls `nextClaimStep` and writes what it returns.
 */
import { CLAIM_STATUSES, type ClaimStatus } from '../resources/claim.js';

/**
 * How long the test clearinghouse waits before each step (submitted → accepted → final): the
 * "~2 seconds" of the Claims tag. `submitClaim` schedules the first step with it.
 */
export const CLAIM_STEP_DELAY_MS = 2000;

export { CLAIM_STATUSES, type ClaimStatus };

/** The event type of each status a claim can reach; one event per move. */
export type ClaimEventType = `claim.${ClaimStatus}`;

const MOVES: Readonly<Record<ClaimStatus, readonly ClaimStatus[]>> = {
  submitted: ['accepted', 'rejected', 'cancelled'],
  accepted: ['paid', 'partially_paid', 'denied', 'cancelled'],
  rejected: [],
  paid: [],
  partially_paid: [],
  denied: [],
  cancelled: [],
};

/** Whether `from → to` is a move of the claim state machine. */
export function canMoveClaim(from: ClaimStatus, to: ClaimStatus): boolean {
  return MOVES[from].includes(to);
}

/** Whether the claim can no longer move. */
export function isClaimTerminal(status: ClaimStatus): boolean {
  return MOVES[status].length === 0;
}

/** The event a move to `to` emits (`claim.submitted` for a new claim). */
export function claimEventType(to: ClaimStatus): ClaimEventType {
  return `claim.${to}`;
}

/** The final statuses of adjudication the simulator can reach. */
export type AdjudicationOutcome = 'rejected' | 'denied' | 'partially_paid' | 'paid';

/** The claim fields the clearinghouse looks at. */
export interface AdjudicableClaim {
  status: string;
  billing_type: 'insurance' | 'self_pay';
  insurance?: { member_id: string } | null;
  amount_total: number;
}

/** The magic `member_id` values of the test clearinghouse (documented in the Claims tag). */
export const TEST_MEMBER_IDS = {
  reject: 'REJECT0000',
  deny: 'DENY00000',
  partial: 'PARTIAL000',
} as const;

/**
 * Where the test clearinghouse takes this claim in the end: `REJECT0000` → `rejected`,
 * `DENY00000` → `denied`, `PARTIAL000` → `partially_paid`, anything else (and `self_pay`) →
 * `paid`.
 */
export function adjudicationOutcome(claim: AdjudicableClaim): AdjudicationOutcome {
  if (claim.billing_type === 'self_pay') return 'paid';
  switch (claim.insurance?.member_id) {
    case TEST_MEMBER_IDS.reject:
      return 'rejected';
    case TEST_MEMBER_IDS.deny:
      return 'denied';
    case TEST_MEMBER_IDS.partial:
      return 'partially_paid';
    default:
      return 'paid';
  }
}

/** Reasons the simulator gives; wording is ours, never derived from the claim's content. */
export const TEST_REJECTION_REASON = 'Member not found at the payer (test mode).';
export const TEST_DENIAL_REASON = 'Coverage not active on the date of service (test mode).';

/** The fields one step changes, ready to spread over the stored claim. */
export interface ClaimStepChanges {
  status: ClaimStatus;
  amount_allowed?: number | null;
  amount_paid?: number | null;
  patient_responsibility?: number | null;
  denial_reason?: string | null;
  adjudicated_at?: number | null;
}

/** One move of the simulated clearinghouse. */
export interface ClaimStep {
  from: ClaimStatus;
  to: ClaimStatus;
  eventType: ClaimEventType;
  changes: ClaimStepChanges;
}

/**
 * The adjudication amounts of a final outcome (Claims tag, "Amounts at adjudication"):
 * `paid` pays all (a `self_pay` claim pays nothing and bills the patient all), `partially_paid`
 * pays ⌊80 %⌋, `denied` pays nothing, `rejected` leaves the amounts `null`.
 */
export function adjudicationAmounts(
  claim: AdjudicableClaim,
  outcome: AdjudicationOutcome,
): Omit<ClaimStepChanges, 'status' | 'adjudicated_at'> {
  const total = claim.amount_total;
  switch (outcome) {
    case 'paid':
      return claim.billing_type === 'self_pay'
        ? { amount_allowed: total, amount_paid: 0, patient_responsibility: total }
        : { amount_allowed: total, amount_paid: total, patient_responsibility: 0 };
    case 'partially_paid': {
      // Integer arithmetic in minor units: ⌊total × 4 / 5⌋, exact for every safe total.
      const paid = Math.floor((total * 4) / 5);
      return { amount_allowed: total, amount_paid: paid, patient_responsibility: total - paid };
    }
    case 'denied':
      return {
        amount_allowed: 0,
        amount_paid: 0,
        patient_responsibility: total,
        denial_reason: TEST_DENIAL_REASON,
      };
    case 'rejected':
      return {
        amount_allowed: null,
        amount_paid: null,
        patient_responsibility: null,
        denial_reason: TEST_REJECTION_REASON,
      };
  }
}

/**
 * The test clearinghouse's next move for a claim at `nowSeconds`, or `null` when it has none
 * (terminal claims). `submitted` goes to `rejected` for `REJECT0000`, else to `accepted`;
 * `accepted` goes to its final outcome with the amounts and `adjudicated_at`.
 *
 * @example
 * nextClaimStep({ status: 'accepted', billing_type: 'insurance',
 *   insurance: { member_id: 'PARTIAL000' }, amount_total: 1000 }, 1_800_000_000)
 * // → { to: 'partially_paid', eventType: 'claim.partially_paid', changes: { amount_paid: 800, … } }
 */
export function nextClaimStep(claim: AdjudicableClaim, nowSeconds: number): ClaimStep | null {
  const from = claim.status as ClaimStatus;
  const outcome = adjudicationOutcome(claim);
  let to: ClaimStatus;
  if (from === 'submitted') to = outcome === 'rejected' ? 'rejected' : 'accepted';
  else if (from === 'accepted') to = outcome;
  else return null;
  // An accepted claim is past rejection; the machine, not the magic value, has the last word.
  if (!canMoveClaim(from, to)) return null;
  const changes: ClaimStepChanges =
    to === 'accepted'
      ? { status: to }
      : {
          status: to,
          ...adjudicationAmounts(claim, to as AdjudicationOutcome),
          adjudicated_at: nowSeconds,
        };
  return { from, to, eventType: claimEventType(to), changes };
}
