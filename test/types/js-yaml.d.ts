// js-yaml 4 is installed through the devDependencies (@apidevtools/swagger-parser, openapi-typescript) without types;
// the compose test only loads a document.
declare module 'js-yaml' {
  export function load(text: string): unknown;
}
