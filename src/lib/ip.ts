import ipaddr from 'ipaddr.js';

/** Parses an address and unwraps IPv4-mapped IPv6 (::ffff:1.2.3.4) so rules see one form. */
export function parseIp(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  // ipaddr.parse() parses twice (a validity check, then the parse), and every counted page
  // view parses its address: one parse, by the family its text shows (only IPv6 has colons).
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = address.includes(':') ? ipaddr.IPv6.parse(address) : ipaddr.IPv4.parse(address);
  } catch {
    return null;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

/** A CIDR range or single address, validated; returns null when the text is neither. */
export function parseCidr(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | null {
  const trimmed = text.trim();
  try {
    if (trimmed.includes('/')) return ipaddr.parseCIDR(trimmed);
    const ip = ipaddr.parse(trimmed);
    return [ip, ip.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

/** True when `address` lies in any of `ranges` (CIDR strings or single addresses). */
export function ipInRanges(address: string, ranges: readonly string[]): boolean {
  const ip = parseIp(address);
  if (!ip) return false;
  return ranges.some((range) => {
    const cidr = parseCidr(range);
    if (!cidr) return false;
    let [base, bits] = cidr;
    if (base.kind() === 'ipv6' && (base as ipaddr.IPv6).isIPv4MappedAddress()) {
      base = (base as ipaddr.IPv6).toIPv4Address();
      bits = Math.max(0, bits - 96);
    }
    return base.kind() === ip.kind() && ip.match([base, bits] as never);
  });
}

/**
 * The address with its host part hidden, for logs and analytics: IPv4 keeps three octets
 * (203.0.113.xxx), IPv6 its first three groups (2001:db8:85a3:xxxx:…).
 */
export function maskIp(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const ip = parseIp(address);
  if (!ip) return 'invalid';
  if (ip.kind() === 'ipv4') {
    const octets = (ip as ipaddr.IPv4).octets;
    return `${octets[0]}.${octets[1]}.${octets[2]}.xxx`;
  }
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 3).map((p) => p.toString(16));
  return `${parts.join(':')}:xxxx:xxxx:xxxx:xxxx:xxxx`;
}

/**
 * The network an address belongs to, as an address: IPv4's /24 (203.0.113.7 → 203.0.113.0),
 * IPv6's /48 (2001:db8:85a3::7 → 2001:db8:85a3::). What the audit log keeps: never a whole address.
 */
export function networkOf(address: string): string | null {
  const ip = parseIp(address);
  if (!ip) return null;
  if (ip.kind() === 'ipv4') {
    const [a, b, c] = (ip as ipaddr.IPv4).octets;
    return `${a}.${b}.${c}.0`;
  }
  const parts = (ip as ipaddr.IPv6).parts.map((part, i) => (i < 3 ? part : 0));
  return new ipaddr.IPv6(parts).toString();
}
