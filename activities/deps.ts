import type { Orm } from '../src/db/orm';
import type { Logger } from '../src/logger';

export interface ActivityDeps {
  orm: Orm;
  logger: Logger;
  now: () => Date;
}
