export function shellBlocks(markdown: string): string[];
export function steps(block: string): { commands: string; expected: string[] }[];
export function shownFields(answer: string): string[];
export function scriptFor(blocks: string[]): string;
export function checkOutput(blocks: string[], output: string): string[];
