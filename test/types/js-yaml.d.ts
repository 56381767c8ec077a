// js-yaml 4 (a devDependency) ships no types of its own;
// the compose test only loads a document.
declare module 'js-yaml' {
  export function load(text: string): unknown;
}
