import { Migration20261122000000Foundation } from './20261122000000-foundation';
import { Migration20261122000100Access } from './20261122000100-access';
import { Migration20261122002000Labels } from './20261122002000-labels';

/** Explicit, ordered list: migrations run the same under tsx, jest and a bundle, with no file globbing. */
export const migrationsList = [
  { name: 'Migration20261122000000Foundation', class: Migration20261122000000Foundation },
  { name: 'Migration20261122000100Access', class: Migration20261122000100Access },
  { name: 'Migration20261122002000Labels', class: Migration20261122002000Labels },
];
