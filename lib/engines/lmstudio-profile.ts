// LM Studio's OpenAI-compatible server: models owned_by "organization_owner". No /metrics.
import { ownedBy, type EngineProfile } from './profile';

export const lmstudio: EngineProfile = {
  id: 'lmstudio',
  label: 'LM Studio',
  recognise: (s) => (ownedBy(s, 'organization_owner') ? { version: null, maxModelLen: null, evidence: 'owned_by organization_owner' } : null),
  dialect: 'openai',
  offered: ['openai', 'openai-chat'],
  metrics: null,
  tokenize: null,
  checked: 'corpus replies quoted from its documentation and issues',
};
