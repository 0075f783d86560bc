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
