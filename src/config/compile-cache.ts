/**
 * Where the CLI keeps the compiled code of the modules a command loads (ours, ajv's) between runs: the user's own
 * cache directory, never a shared one another user could write to. The environment is read here, in the config
 * module, like every other setting.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `$XDG_CACHE_HOME/toolcall-normalizer/compile-cache`, or under `~/.cache` when XDG_CACHE_HOME is unset, empty or
 * relative (the XDG rule). Undefined where Node.js decides itself (`NODE_COMPILE_CACHE` names another directory;
 * `NODE_DISABLE_COMPILE_CACHE=1` is honoured by Node.js) or where there is no home directory to put it in.
 */
export function compileCacheDirectory(env: Env = process.env, home: () => string = homedir): string | undefined {
  if (env.NODE_COMPILE_CACHE !== undefined) return undefined;
  const xdg = env.XDG_CACHE_HOME;
  let base: string;
  try {
    base = xdg !== undefined && isAbsolute(xdg) ? xdg : join(home(), '.cache');
  } catch {
    return undefined;
  }
  return join(base, 'toolcall-normalizer', 'compile-cache');
}
