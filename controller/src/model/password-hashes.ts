// The password hashes basic authentication can check (lua/resty_ingress/auth.lua
// and its helpers), by their form: those NGINX's auth_basic checks itself
// ({PLAIN}, {SHA}, {SSHA}, $apr1$) and those it hands to crypt(3), which the
// data plane's libxcrypt checks ($1$, bcrypt, $5$, $6$, yescrypt, gost-yescrypt,
// scrypt, DES). A hash of another form is refused with its Secret: rather a 503
// and an Event than a user list where some entry can never be checked.

/** One recognised form: its name for messages and a whole-string grammar. */
interface HashForm {
  readonly name: string;
  readonly grammar: RegExp;
}

const B64 = '[./0-9A-Za-z]';

const FORMS: readonly HashForm[] = [
  // eslint-disable-next-line no-control-regex -- control characters are what the grammar refuses
  { name: 'plain', grammar: /^\{PLAIN\}[^\u0000-\u001f\u007f]*$/u },
  { name: 'SHA-1', grammar: /^\{SHA\}[A-Za-z0-9+/]{27}=$/u },
  { name: 'salted SHA-1', grammar: /^\{SSHA\}(?:[A-Za-z0-9+/]{4}){7,}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/u },
  { name: 'Apache MD5 (apr1)', grammar: new RegExp(`^\\$apr1\\$[^$:\\s]{0,8}\\$${B64}{22}$`, 'u') },
  { name: 'MD5-crypt', grammar: new RegExp(`^\\$1\\$[^$:\\s]{0,8}\\$${B64}{22}$`, 'u') },
  { name: 'bcrypt', grammar: new RegExp(`^\\$2[abxy]\\$(?:0[4-9]|[12]\\d|3[01])\\$${B64}{53}$`, 'u') },
  { name: 'SHA-crypt', grammar: new RegExp(`^\\$[56]\\$(?:rounds=\\d{1,9}\\$)?[^$:\\s]{0,16}\\$${B64}{43}(?:${B64}{43})?$`, 'u') },
  { name: 'yescrypt', grammar: new RegExp(`^\\$(?:y|gy|7)\\$${B64}+\\$${B64}*\\$${B64}{43}$`, 'u') },
  { name: 'DES crypt', grammar: new RegExp(`^${B64}{13}$`, 'u') },
];

/** The name of the form `hash` has, or null when nothing here can check it. */
export function passwordHashForm(hash: string): string | null {
  for (const form of FORMS) if (form.grammar.test(hash)) return form.name;
  return null;
}

/** htdigest's HA1: MD5(user:realm:password) as 32 hex digits. */
export function isDigestHash(hash: string): boolean {
  return /^[0-9a-fA-F]{32}$/u.test(hash);
}
