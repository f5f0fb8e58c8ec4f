import type { ReactNode } from "react";
import { VisuallyHidden } from "./VisuallyHidden";
import { TableWrap } from "./TableWrap";

/**
 * A scrolling table whose last column holds each row's buttons. That column's name is for screen
 * readers only, so the wrapper is positioned: the hidden name must not widen the page on a phone.
 */
export function ActionsTable({ label, columns, children }: { label: string; columns: string[]; children: ReactNode }) {
  return (
    <TableWrap label={label} style={{ position: "relative" }}>
      <table className="data">
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            <th scope="col">
              <VisuallyHidden>Actions</VisuallyHidden>
            </th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableWrap>
  );
}
