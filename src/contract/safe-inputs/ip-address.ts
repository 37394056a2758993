/**
 * IP address classification for outbound requests: is this an address of the public internet, or one that reaches
 * the host itself, its network or a special-purpose block (RFC 6890 and the IANA special-purpose registries)?
 * Addresses are parsed strictly (canonical dotted-quad IPv4; IPv6 with `::` and an optional dotted tail), so the
 * numeric tricks of URLs (`2130706433`, `0x7f.1`, `017700000001`) must be canonicalized first — the WHATWG URL parser
 * does that, and resolvers return canonical forms.
 */

/**
 * IPv4 blocks that are not the public internet: [first octets as a 32-bit number, prefix length]. Every block of the
 * IANA IPv4 Special-Purpose Address Registry that is not globally reachable, multicast, and the host-local addresses
 * clouds serve from public ranges. Reviewed against the registry (2025 edition) and the providers' documentation:
 * the metadata services of AWS, GCP, Azure, OCI, DigitalOcean, OpenStack, Hetzner and Tencent (169.254.169.254,
 * 169.254.170.2, 169.254.0.23), Alibaba's (100.100.100.200) and OCI's older one (192.0.0.192) are inside the blocks
 * below; the AWS IPv6 endpoints (fd00:ec2::254 and its DNS and time servers) are unique-local (see `isPublicIpv6`).
 */
const NON_PUBLIC_V4: readonly (readonly [number, number])[] = [
  [v4(0, 0, 0, 0), 8], // "this" network
  [v4(10, 0, 0, 0), 8], // private
  [v4(100, 64, 0, 0), 10], // carrier-grade NAT (Alibaba Cloud's metadata and DNS live here)
  [v4(127, 0, 0, 0), 8], // loopback
  [v4(161, 26, 0, 0), 16], // IBM Cloud's service network (its DNS, NTP and other infrastructure), host-local
  [v4(168, 63, 129, 16), 32], // Azure's WireServer: the host's agent, DNS and health probes, from inside a VM only
  [v4(169, 254, 0, 0), 16], // link-local (cloud metadata lives here)
  [v4(172, 16, 0, 0), 12], // private
  [v4(192, 0, 0, 0), 24], // IETF protocol assignments (DS-Lite, NAT64 discovery, OCI's older metadata 192.0.0.192)
  [v4(192, 0, 2, 0), 24], // documentation
  [v4(192, 88, 99, 0), 24], // 6to4 relay anycast
  [v4(192, 168, 0, 0), 16], // private
  [v4(198, 18, 0, 0), 15], // benchmarking
  [v4(198, 51, 100, 0), 24], // documentation
  [v4(203, 0, 113, 0), 24], // documentation
  [v4(224, 0, 0, 0), 4], // multicast
  [v4(240, 0, 0, 0), 4], // reserved, and the broadcast address
];

function v4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

/** A canonical dotted-quad IPv4 address as a 32-bit number; `null` for anything else. */
export function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^(0|[1-9][0-9]{0,2})$/.test(part) && Number(part) <= 255))
    return null;
  const [a, b, c, d] = parts.map(Number) as [number, number, number, number];
  return v4(a, b, c, d);
}

/** An IPv6 address (without brackets or zone) as its eight 16-bit groups; `null` when it is not one. */
export function parseIpv6(text: string): number[] | null {
  if (text.length > 45 || !/^[0-9A-Fa-f:.]+$/.test(text)) return null;
  let body = text;
  const tail: number[] = [];
  if (text.includes('.')) {
    // A dotted IPv4 tail (`::ffff:10.0.0.1`) stands for the last two groups.
    const lastColon = text.lastIndexOf(':');
    const embedded = lastColon < 0 ? null : parseIpv4(text.slice(lastColon + 1));
    if (embedded === null) return null;
    tail.push(embedded >>> 16, embedded & 0xffff);
    body = text[lastColon - 1] === ':' ? text.slice(0, lastColon + 1) : text.slice(0, lastColon);
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groupsOf(halves[0]!);
  const right = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (![...left, ...right].every((group) => /^[0-9A-Fa-f]{1,4}$/.test(group))) return null;
  const present = left.length + right.length + tail.length;
  if (halves.length === 1 ? present !== 8 : present > 7) return null;
  const zeros = Array.from({ length: 8 - present }, () => 0);
  return [...left.map((g) => parseInt(g, 16)), ...zeros, ...right.map((g) => parseInt(g, 16)), ...tail];
}

/** True when a 32-bit IPv4 address is on the public internet. */
export function isPublicIpv4(address: number): boolean {
  return !NON_PUBLIC_V4.some(([base, bits]) => address >>> (32 - bits) === base >>> (32 - bits));
}

/**
 * True when an IPv6 address (eight groups) is on the public internet: global unicast (2000::/3) outside its
 * special blocks, or an IPv4-mapped or NAT64 address whose IPv4 address is public. Everything outside 2000::/3 —
 * loopback, unique-local (AWS's metadata at fd00:ec2::254), link-local, site-local, multicast, the IPv4-compatible,
 * discard (100::/64), local-use NAT64 (64:ff9b:1::/48) and SRv6 (5f00::/16) blocks — is not. Checked against the IANA
 * IPv6 Special-Purpose Address Registry.
 */
export function isPublicIpv6(groups: readonly number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const embeddedV4 = ((g6 << 16) | g7) >>> 0;
  // ::ffff:a.b.c.d (mapped) and 64:ff9b::a.b.c.d (NAT64) reach an IPv4 address.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return isPublicIpv4(embeddedV4);
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return isPublicIpv4(embeddedV4);
  if ((g0 & 0xe000) !== 0x2000) return false;
  if (g0 === 0x2001 && g1 < 0x200) return false; // TEREDO (2001::/32) and the IETF protocol blocks (2001::/23)
  if (g0 === 0x2001 && g1 === 0xdb8) return false; // documentation
  if (g0 === 0x3fff && g1 < 0x1000) return false; // documentation (3fff::/20)
  if (g0 === 0x2002) return isPublicIpv4(((g1 << 16) | g2) >>> 0); // 6to4 embeds an IPv4 address
  return true;
}

/** True when `text` is an IP address (IPv4, or IPv6 with or without brackets) on the public internet. */
export function isPublicAddress(text: string): boolean {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const ipv4 = parseIpv4(bare);
  if (ipv4 !== null) return isPublicIpv4(ipv4);
  const ipv6 = parseIpv6(bare);
  return ipv6 !== null && isPublicIpv6(ipv6);
}

/** True when `text` is an IP address literal of either family (not a host name). */
export function isIpLiteral(text: string): boolean {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  return parseIpv4(bare) !== null || parseIpv6(bare) !== null;
}
