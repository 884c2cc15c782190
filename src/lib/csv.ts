/**
 * A value as a CSV field, quoted when it holds a quote, comma or line break. Text a spreadsheet
 * would take for a formula or a command (=, +, -, @, tab or carriage return first, as OWASP's
 * advice on CSV injection has it, and | and %, which LibreOffice and older Excel read as DDE
 * and macro starts: the text is anyone's, and "=HYPERLINK(...)" opened in Excel is a link
 * nobody wrote) starts with an apostrophe, which spreadsheets show as text.
 */
export function csvField(value: string): string {
  const text = /^[=+\-@\t\r|%]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
