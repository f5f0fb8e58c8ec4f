/**
 * Reads a body up to `limit` bytes. A body that ends within it comes back whole; a longer one
 * comes back as a stream of everything (the part already read, then the rest as it arrives), so
 * no more than the limit is ever held in memory.
 */
export async function readLimited(body: ReadableStream<Uint8Array> | null, limit: number): Promise<{ bytes: Uint8Array } | { stream: ReadableStream<Uint8Array> }> {
  if (!body) return { bytes: new Uint8Array() };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks) };
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) break;
  }
  const head = chunks;
  const stream = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      const next = head.shift();
      if (next) return controller.enqueue(next);
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { stream };
}
