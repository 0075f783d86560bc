/** Placeholder: the @platformatic/kafka pipe (filled in below). */
import type { Pipe, PipeConfig } from './pipe.js';

export function platformaticPipe(config: PipeConfig): Pipe {
  throw new Error(`not implemented: ${config.input}`);
}
