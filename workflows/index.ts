export { purgeRequestLogWorkflow } from './purge-request-log';
