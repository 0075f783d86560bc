/** The environment a child process inherits: the proxy's upstream server runs with the proxy's own environment. */
export function inheritedEnvironment(): NodeJS.ProcessEnv {
  return { ...process.env };
}
