// GET /projects/{projectId}/storms — any member: retry-storm incidents, latest first, each linking to its detail.
import type { Metadata } from "next";
import { StormsList } from "@/components/StormsList";

export const metadata: Metadata = { title: "Storms · Idemgate" };

export default function StormsPage() {
  return <StormsList />;
}
