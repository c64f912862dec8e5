// A failure of a compaction, repair or sidecar read that the user can act on, and its kind. A leaf module: code below
// the engine (sidecarFiles.ts, the agent readers) raises it without importing the engine's types.
export type CompactErrorCode =
  | 'cancelled'
  | 'auth' // 401/403: key missing or rejected
  | 'not-found' // 404: unknown model
  | 'api' // other API failure after retries
  | 'network' // connection refused/reset/timeout
  | 'changed-on-disk' // the transcript changed since it was read
  | 'locked' // another compaction of the same file is running
  | 'nothing-to-compact' // nothing safe to summarize or drop
  | 'invalid-output' // the result failed validation; nothing written
  | 'unsafe-path' // a write would escape its folder
  | 'exists' // the output file exists and is not this session's own output (use --force)
  | 'write-failed' // a file could not be written (permission, read-only or full file system); the original is unchanged
  | 'unsupported-format' // the file's format is read-only (inspect only)
  | 'wrong-summarizer' // the agent CLI chosen to summarize is not the session's own agent
  | 'bad-backup'; // a backup not known to be whole (no manifest, or not the bytes it recorded): never restored

/** A failure the user can act on; `message` says the cause and what to do. */
export class CompactError extends Error {
  constructor(
    readonly code: CompactErrorCode,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'CompactError';
  }
}
