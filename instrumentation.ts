// Runs once when a server process starts: migrate and seed before the first request.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { boot } = await import("./lib/server/boot");
  await boot();
}
