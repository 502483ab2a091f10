// The formats the e-way bill system lists as valid (GST e-invoice portal, "General Master", Valid Formats of Vehicle
// Numbers), plus the Bharat series and temporary numbers written TR, which that list does not name.
const VEHICLE_NUMBER_FORMATS: readonly RegExp[] = [
  /^[A-Z]{2}\d{2}[A-Z]{0,3}\d{4}$/, // AB121234, AB12A1234, AB12AB1234, AB12ABC1234 (AB: the state)
  /^[A-Z]{2}\d{3}[A-Z]\d{4}$/, // AB123A1234
  // A one-digit district, as Delhi's registration marks are written (DL1CAB1234, DL3CBJ1234): the marks on the
  // plates and in VAHAN, so the e-way bills of Delhi's vehicles carry them.
  /^[A-Z]{2}\d[A-Z]{1,3}\d{4}$/,
  /^[A-Z]{3}\d{4}$/, // ABC1234 (the old format)
  /^DF[0-9A-Z]{6,13}$/, // defence vehicles
  /^(TM|TR|BP|NP)[0-9A-Z]{5,13}$/, // temporary registration, Bhutan and Nepal vehicles: at least 7 characters
  /^\d{2}BH\d{4}[A-Z]{1,2}$/, // Bharat series: 22BH1234AB
];

/**
 * A vehicle number as the e-way bill system expects it: upper case, without spaces, hyphens, dots or slashes.
 * @example normalizeVehicleNumber('mh-12 ab 1234'); // 'MH12AB1234'
 */
export function normalizeVehicleNumber(value: string): string {
  return value.replace(/[\s\-./]/g, '').toUpperCase();
}

/**
 * Whether `value` is a vehicle number in a format the e-way bill system accepts, once normalised by
 * {@link normalizeVehicleNumber} (so spaces, hyphens and lower case are forgiven):
 * - regular: `AB121234`, `AB12A1234`, `AB12AB1234`, `AB12ABC1234`, `AB123A1234`, `ABC1234`, and a one-digit
 *   district as Delhi writes it: `DL1CAB1234` (or `DL01CAB1234`);
 * - defence `DF…`; temporary `TM…` or `TR…`; Bhutan `BP…` and Nepal `NP…` vehicles (7 to 15 characters);
 * - Bharat series: `22BH1234AB`.
 *
 * The SDK sends `vehicle_number` as written, and the portal refuses lower case and separators: send
 * `normalizeVehicleNumber(value)`, not `value`. Preflight (rule `vehicle-number`) reports a value that is not
 * written so.
 * @example isValidVehicleNumber('KA01A1234'); // true
 */
export function isValidVehicleNumber(value: string): boolean {
  const normalized = normalizeVehicleNumber(value);
  return VEHICLE_NUMBER_FORMATS.some((format) => format.test(normalized));
}
