/**
 * The one difference on purpose between the released 2026-11-01 document and the one served
 * now: the released document did not state the upper bound the server always applied to a
 * 2026-11-01 appointment time (253402300799, 9999-12-31T23:59:59Z); the derived one does, so
 * each version's document states every bound its validation applies (issue 30). A comparison
 * with the released contract leaves exactly these pointers out.
 */
export const STATED_BOUNDS =
  /^\/components\/schemas\/Appointment(Create|Update)Params\/properties\/(start|end)/;
