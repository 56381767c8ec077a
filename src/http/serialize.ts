/** Answers with JSON already written as text (the label reads' cached JSON), with the type Koa gives JSON objects. */
export function setJsonText(ctx: { type: string; body: unknown }, text: string): void {
  ctx.type = 'application/json';
  ctx.body = text;
}
