import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const inline = (text: string) =>
  escape(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');

/**
 * Renders docs/errors.md as HTML with one anchor per error code, so `doc_url` (`/v1/docs/errors#<code>`) lands on
 * the code's section. The markdown stays the single source, readable on its own in the repository.
 */
export function renderErrorReference(markdown: string, links: { apiReferenceUrl: string }): string {
  // Every doc_url lands on this page: it leads on to the whole API's reference.
  const html: string[] = [
    `<p><a href="${escape(links.apiReferenceUrl).replace(/"/g, '&quot;')}">API reference</a> (every endpoint, rendered from the OpenAPI document)</p>`,
  ];
  let list = false;
  for (const line of markdown.split('\n')) {
    const heading = /^(#{1,3})\s+(.*)$/.exec(line);
    const item = /^[-*]\s+(.*)$/.exec(line);
    if (list && !item) {
      html.push('</ul>');
      list = false;
    }
    if (heading) {
      const level = heading[1]!.length;
      const text = heading[2]!.replace(/`/g, '');
      const id = level === 2 ? ` id="${escape(text)}"` : '';
      html.push(`<h${level}${id}>${inline(heading[2]!)}</h${level}>`);
    } else if (item) {
      if (!list) html.push('<ul>');
      list = true;
      html.push(`<li>${inline(item[1]!)}</li>`);
    } else if (line.trim()) {
      html.push(`<p>${inline(line)}</p>`);
    }
  }
  if (list) html.push('</ul>');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shipping Label API errors</title></head><body>${html.join('\n')}</body></html>`;
}

export function loadErrorReference(
  projectRoot: string,
  links: { apiReferenceUrl: string },
): { markdown: string; html: string } {
  const markdown = readFileSync(join(projectRoot, 'docs', 'errors.md'), 'utf8');
  return { markdown, html: renderErrorReference(markdown, links) };
}
