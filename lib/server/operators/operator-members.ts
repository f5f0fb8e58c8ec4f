import type { MemberRole, MemberRow, OperatorStore } from "../../store/ports/operator-store";
import { AppError } from "../app-error";
import { type Actor, auditEntry } from "./operator-audit";

/** Creates an operator account (better-auth hashes the password); answers the new user's id. */
export type CreateUser = (input: { email: string; password: string; name: string }) => Promise<string>;

export interface AddMemberInput {
  email: string;
  role: MemberRole;
  /** Only for a new account: name and password create it. */
  name?: string;
  password?: string;
}

/** Does the work of creating an account without creating one (lib/auth/create-user.ts: the password hash). */
export type HashLikeCreate = (password: string) => Promise<void>;

/** An admin's member management for one project; every change audited. */
export class OperatorMembers {
  constructor(
    private readonly store: OperatorStore,
    private readonly createUser: CreateUser,
    private readonly hashLikeCreate: HashLikeCreate = async () => undefined,
    private readonly clock: () => number = Date.now,
  ) {}

  list(projectId: string): Promise<MemberRow[]> {
    return this.store.listMembers(projectId);
  }

  /**
   * Adds an account by email. A project admin learns nothing about accounts outside the projects
   * they share with them: such an email is handled exactly like one without an account (a
   * password is asked for; given one, the account is added, and an existing account keeps its own
   * password). Accounts they can already see (and everything, for an instance admin) get the
   * plain answers.
   */
  async add(projectId: string, input: AddMemberInput, actor: Actor): Promise<MemberRow> {
    const email = input.email.trim().toLowerCase();
    let user = await this.store.findUserByEmail(email);
    const visible = user !== null && (await this.canSee(user.id, actor));
    if (visible && input.password !== undefined) {
      throw new AppError("already_exists", `an account for ${email} exists: omit the password to add it to this project`);
    }
    if (!visible && input.password === undefined) {
      throw new AppError("invalid_input", `give a password (and a name) to add ${email}: it is not an account of a project you share`);
    }
    const created = user === null;
    if (!user) {
      const id = await this.createUser({ email, password: input.password!, name: input.name ?? email });
      // Instance-level, not in the project's log: a project's log must read the same whether or not the email had an account.
      await this.store.appendAudit(auditEntry(actor, null, "user.created", { type: "user", id }, { email, projectId }, this.clock()));
      user = { id, email, name: input.name ?? email, instanceAdmin: false };
    } else if (!visible) {
      // Not created, but as slow as if it were: the answer's timing must not tell either.
      await this.hashLikeCreate(input.password!);
    }
    if (await this.store.findMember(projectId, user.id)) {
      throw new AppError("already_exists", `${email} is already a member: change the role instead`);
    }
    const now = this.clock();
    const detail = { email, role: input.role };
    await this.store.putMember(projectId, user.id, input.role, now, auditEntry(actor, projectId, "member.added", { type: "member", id: user.id }, detail, now));
    const member = (await this.store.findMember(projectId, user.id))!;
    // An account the admin could not see is answered as a new one would be: with the name given (or
    // the email), never the account's own display name, which would say the account existed.
    return visible || created ? member : { ...member, name: input.name ?? email };
  }

  async setRole(projectId: string, userId: string, role: MemberRole, actor: Actor): Promise<MemberRow> {
    const member = await this.getOrThrow(projectId, userId);
    if (userId === actor.id && role !== "admin") throw new AppError("invalid_state", "you cannot lower your own role: ask another admin");
    const now = this.clock();
    const detail = { email: member.email, from: member.role, to: role };
    await this.store.putMember(projectId, userId, role, now, auditEntry(actor, projectId, "member.role_changed", { type: "member", id: userId }, detail, now));
    return { ...member, role };
  }

  async remove(projectId: string, userId: string, actor: Actor): Promise<MemberRow> {
    const member = await this.getOrThrow(projectId, userId);
    if (userId === actor.id) throw new AppError("invalid_state", "you cannot remove yourself: ask another admin");
    const now = this.clock();
    const detail = { email: member.email, role: member.role };
    await this.store.removeMember(projectId, userId, auditEntry(actor, projectId, "member.removed", { type: "member", id: userId }, detail, now));
    return member;
  }

  /** Whether the actor may know the account exists: an instance admin, or they share a project. */
  private async canSee(userId: string, actor: Actor): Promise<boolean> {
    if (actor.type !== "user" || actor.id === null) return false;
    if ((await this.store.findUserById(actor.id))?.instanceAdmin) return true;
    const [mine, theirs] = await Promise.all([this.store.listMemberships(actor.id), this.store.listMemberships(userId)]);
    const shared = new Set(mine.map((membership) => membership.projectId));
    return theirs.some((membership) => shared.has(membership.projectId));
  }

  private async getOrThrow(projectId: string, userId: string): Promise<MemberRow> {
    const member = await this.store.findMember(projectId, userId);
    if (!member) throw new AppError("not_found", `no member ${userId} in this project`);
    return member;
  }
}
