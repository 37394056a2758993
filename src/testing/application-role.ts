import pg from 'pg';

/** SQLSTATE `duplicate_object`: the role exists already. */
const DUPLICATE_OBJECT = '42710';

/**
 * Creates a LOGIN role without privileges, or resets the password of an existing one, connected as a role allowed
 * to create roles (a superuser). Privileges come only from `migrate(ownerPool, { appRole })`, which grants exactly
 * what the store needs; this never grants anything.
 */
export async function ensureLoginRole(adminConnectionString: string, role: string, password: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminConnectionString });
  await client.connect();
  try {
    // DDL takes no parameters: the name and password are escaped by the driver.
    const name = client.escapeIdentifier(role);
    const secret = client.escapeLiteral(password);
    try {
      await client.query(`CREATE ROLE ${name} LOGIN PASSWORD ${secret}`);
    } catch (error) {
      // Another process created it first (or an earlier run did): make it log in with this password.
      if ((error as { code?: unknown }).code !== DUPLICATE_OBJECT) throw error;
      await client.query(`ALTER ROLE ${name} LOGIN PASSWORD ${secret}`);
    }
  } finally {
    await client.end();
  }
}

/** The same connection string with another user and password. */
export function withCredentials(connectionString: string, user: string, password: string): string {
  const url = new URL(connectionString);
  url.username = encodeURIComponent(user);
  url.password = encodeURIComponent(password);
  return url.toString();
}
