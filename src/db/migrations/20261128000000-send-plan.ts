import { Migration } from '@mikro-orm/migrations';

/**
 * `label_creations.send_plan` (docs/decisions/1010-prepare-in-the-carrier-call.md): the decision to create and the
 * carrier call's input, written with `sent_at` by the activity that prepares and sends in one. A retry of that activity
 * (its worker was lost mid-call) carries on from this plan, the one the carrier was called with, never from a
 * decision taken again. Null for creations sent otherwise (the workflow holds their plan in its history).
 */
export class Migration20261128000000SendPlan extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table label_creations add column send_plan jsonb;`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table label_creations drop column if exists send_plan;');
  }
}
