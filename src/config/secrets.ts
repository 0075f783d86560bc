/**
 * Secrets come from environment variables an operator names (`--password-env VAR`), never from flags: argv is
 * visible to every user in `ps` and lands in shell history. This is the one place outside the configuration
 * module that reads the environment, and it reads only the variable it is asked for.
 */

/** The value of environment variable `name`, or undefined when it is unset or empty. */
export function readSecretEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * `value` fit to quote in a message: everything up to its last `@` (userinfo such as `user:password@`, in a
 * broker entry or a URL) replaced by `***@`. Values without `@` are returned unchanged.
 */
export function redactUserinfo(value: string): string {
  const at = value.lastIndexOf('@');
  return at === -1 ? value : `***${value.slice(at)}`;
}
