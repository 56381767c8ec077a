export { abandonedCreationRetentionWorkflow } from './retention';
export { labelCreationWorkflow } from './workflow';
