import Link from "next/link";
import type { Storm } from "@/lib/contract/storms";

/** Shown above the overview while any retry storm is open. */
export function StormBanner({ storms, href }: { storms: Storm[]; href: string }) {
  if (storms.length === 0) return null;
  const tools = [...new Set(storms.map((s) => s.tool))].join(", ");
  return (
    <div className="card banner" role="status" data-testid="storm-banner">
      <strong>
        {storms.length === 1 ? "A retry storm is open" : `${storms.length} retry storms are open`}
      </strong>{" "}
      on {tools}: dedup hits far above their baseline. <Link href={href}>See storms</Link>
    </div>
  );
}
