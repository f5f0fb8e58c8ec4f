// GET /projects/{projectId}/storms — admins: retry-storm incidents, latest first.
import type { Metadata } from "next";
import { StormsList } from "@/components/StormsList";

export const metadata: Metadata = { title: "Storms · Idemgate" };

export default function StormsPage() {
  return <StormsList />;
}
