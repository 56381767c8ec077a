import { Migration } from '@mikro-orm/migrations';

/** The carrier's own shipment ID (packet ID, parcel ID...): what a render call at the carrier is addressed by. */
export class Migration20261122003000LabelShipmentId extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table labels add column carrier_shipment_id text null;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table labels drop column carrier_shipment_id;');
  }
}
