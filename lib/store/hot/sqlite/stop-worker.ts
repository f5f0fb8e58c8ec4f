import type { Worker } from "node:worker_threads";

/**
 * Asks a worker thread to finish (`message`), waits for it to exit, `budgetMs` at most, then
 * terminates it. Our workers are unref'd while idle, so that they never keep a process up; were one
 * still unref'd here, a process with nothing else left to do would exit under this wait, silently
 * and with code 0, before anything after the close ran (found by the bench, whose report is written
 * after its stores close). So the wait holds the process: the worker is ref'd, and so is the timer.
 */
export async function stopWorker(worker: Worker, message: unknown, budgetMs: number): Promise<void> {
  worker.ref();
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.postMessage(message);
  let backstop: NodeJS.Timeout | undefined;
  await Promise.race([exited, new Promise<void>((resolve) => (backstop = setTimeout(resolve, budgetMs)))]);
  clearTimeout(backstop);
  await worker.terminate();
}
