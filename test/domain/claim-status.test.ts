import { describe, expect, it } from 'vitest';
import {
  type AdjudicableClaim,
  adjudicationOutcome,
  CLAIM_STATUSES,
  type ClaimStatus,
  canMoveClaim,
  claimEventType,
  isClaimTerminal,
  nextClaimStep,
  TEST_DENIAL_REASON,
} from '../../server/domain/claim-status.js';

const NOW = 1_800_000_000;

const ALLOWED: Record<ClaimStatus, ClaimStatus[]> = {
  submitted: ['accepted', 'rejected', 'cancelled'],
  accepted: ['paid', 'partially_paid', 'denied', 'cancelled'],
  rejected: [],
  paid: [],
  partially_paid: [],
  denied: [],
  cancelled: [],
};

function insured(memberId: string, status = 'submitted', total = 26_001): AdjudicableClaim {
  return {
    status,
    billing_type: 'insurance',
    insurance: { member_id: memberId },
    amount_total: total,
  };
}

describe('claim state machine', () => {
  const pairs = CLAIM_STATUSES.flatMap((from) =>
    CLAIM_STATUSES.map((to) => ({ from, to, allowed: ALLOWED[from].includes(to) })),
  );
  it.each(pairs)('$from → $to allowed: $allowed', ({ from, to, allowed }) => {
    expect(canMoveClaim(from, to)).toBe(allowed);
  });

  it.each(CLAIM_STATUSES)('%s: terminal exactly when it has no moves', (status) => {
    expect(isClaimTerminal(status)).toBe(ALLOWED[status].length === 0);
  });

  it.each(CLAIM_STATUSES)('%s emits claim.%s', (status) => {
    expect(claimEventType(status)).toBe(`claim.${status}`);
  });
});

describe('adjudicationOutcome (test clearinghouse)', () => {
  it.each([
    { given: insured('REJECT0000'), want: 'rejected' },
    { given: insured('DENY00000'), want: 'denied' },
    { given: insured('PARTIAL000'), want: 'partially_paid' },
    { given: insured('W123456789'), want: 'paid' },
    // Near misses are ordinary member ids.
    { given: insured('reject0000'), want: 'paid' },
    { given: insured('DENY000000'), want: 'paid' },
    {
      given: { status: 'submitted', billing_type: 'self_pay', insurance: null, amount_total: 5 },
      want: 'paid',
    },
  ] as const)('$given.insurance → $want', ({ given, want }) => {
    expect(adjudicationOutcome(given)).toBe(want);
  });
});

describe('nextClaimStep', () => {
  it.each([
    {
      name: 'submitted → accepted',
      given: insured('W1', 'submitted'),
      to: 'accepted',
      changes: { status: 'accepted' },
    },
    {
      name: 'REJECT0000: submitted → rejected, amounts stay null',
      given: insured('REJECT0000', 'submitted'),
      to: 'rejected',
      changes: {
        amount_allowed: null,
        amount_paid: null,
        patient_responsibility: null,
        adjudicated_at: NOW,
      },
    },
    {
      name: 'accepted → paid',
      given: insured('W1', 'accepted'),
      to: 'paid',
      changes: {
        amount_allowed: 26_001,
        amount_paid: 26_001,
        patient_responsibility: 0,
        adjudicated_at: NOW,
      },
    },
    {
      name: 'PARTIAL000: accepted → partially_paid, 80 % rounded down',
      given: insured('PARTIAL000', 'accepted'),
      to: 'partially_paid',
      changes: { amount_allowed: 26_001, amount_paid: 20_800, patient_responsibility: 5_201 },
    },
    {
      name: 'DENY00000: accepted → denied',
      given: insured('DENY00000', 'accepted'),
      to: 'denied',
      changes: {
        amount_allowed: 0,
        amount_paid: 0,
        patient_responsibility: 26_001,
        denial_reason: TEST_DENIAL_REASON,
      },
    },
    {
      name: 'self_pay: accepted → paid, billed to the patient',
      given: {
        status: 'accepted',
        billing_type: 'self_pay',
        insurance: null,
        amount_total: 9000,
      } as AdjudicableClaim,
      to: 'paid',
      changes: { amount_allowed: 9000, amount_paid: 0, patient_responsibility: 9000 },
    },
  ])('$name', ({ given, to, changes }) => {
    const step = nextClaimStep(given, NOW);
    expect(step?.to).toBe(to);
    expect(step?.eventType).toBe(`claim.${to}`);
    expect(step?.changes).toMatchObject({ status: to, ...changes });
    if (to === 'accepted') expect(step?.changes).toEqual({ status: 'accepted' });
  });

  it.each(['rejected', 'paid', 'partially_paid', 'denied', 'cancelled'])(
    '%s has no next step',
    (status) => {
      expect(nextClaimStep(insured('W1', status), NOW)).toBeNull();
    },
  );

  it('an accepted REJECT0000 claim is past rejection: no illegal move', () => {
    expect(nextClaimStep(insured('REJECT0000', 'accepted'), NOW)).toBeNull();
  });

  it('paid + patient share always add up to the total', () => {
    for (const total of [0, 1, 4, 5, 99, 12_345, 4_999_500_000_000]) {
      const c = nextClaimStep(insured('PARTIAL000', 'accepted', total), NOW)!.changes;
      expect((c.amount_paid ?? 0) + (c.patient_responsibility ?? 0)).toBe(total);
      expect(c.amount_paid).toBe(Math.floor((total * 8) / 10));
    }
  });
});
