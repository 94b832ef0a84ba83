/**
 * The Luhn check digit (ISO/IEC 7812-1), which an NPI carries over `80840` + its first nine
 * digits. Written here from the standard rather than imported from the server, so the
 * fuzzer's idea of a valid NPI does not share a bug with the code it checks.
 *
 * @example luhnDigit('80840123456789') // 3, so NPI 1234567893 is valid
 */
export function luhnDigit(digits: string): number {
  let sum = 0;
  let double = true;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = Number(digits[i]);
    if (double) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
    double = !double;
  }
  return (10 - (sum % 10)) % 10;
}
