import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets operators configure (custom pickup point provider headers, webhook signing secrets) are stored sealed:
 * AES-256-GCM under `SETTINGS_ENCRYPTION_KEY` with a fresh IV per write, bound to their owner by associated data
 * (`pickup_point_provider:pp_...`, `webhook_endpoint:we_...`) so a sealed value copied onto another row does not open.
 * Decision 0204.
 */
const VERSION = 'v1';

export function sealValue(key: Buffer, owner: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(owner));
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join(':');
}

/** The plain value, or null when it does not open (another key, another owner, or damaged). */
export function openValue(key: Buffer, owner: string, sealed: string): string | null {
  const [version, iv, tag, data] = sealed.split(':');
  if (version !== VERSION || !iv || !tag || data === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(owner));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
