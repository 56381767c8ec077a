import type { components, operations } from '../generated/schema.js';

/** The JSON body of an operation's answer of one status. */
type Json<O extends keyof operations, S extends number> =
  operations[O]['responses'] extends Record<S, { content: { 'application/json': infer T } }> ? T : never;

/** The label object (spec "Label object"), as `GET /labels/{label_id}` answers it. */
export type Label = Json<'getLabel', 200>;
/** The label creation object (spec "Label creation object"), as `GET /label-creations/{id}` answers it. */
export type LabelCreation = Json<'getLabelCreation', 200>;
export type LabelCreationStatus = LabelCreation['status'];
/** The attention of a creation in `needs_attention`. */
export type Attention = NonNullable<LabelCreation['attention']>;
/** The store, the key's scopes and version, the store's gates (`GET /shop`). */
export type Shop = Json<'getShop', 200>;
export type Order = Json<'getOrder', 200>;
export type CarrierAccount = Json<'getCarrierAccount', 200>;
/** A page of `GET /labels`. */
export type LabelPage = Json<'listLabels', 200>;
/** A page of `GET /label-creations`. */
export type LabelCreationPage = Json<'listLabelCreations', 200>;
/** The body of `POST /labels`. */
export type CreateLabelRequest = operations['createLabel']['requestBody']['content']['application/json'];
/** The query of `GET /labels` and `GET /label-creations`, without the cursor the iterators handle. */
export type LabelQuery = Omit<NonNullable<operations['listLabels']['parameters']['query']>, 'cursor'>;
export type LabelCreationQuery = Omit<NonNullable<operations['listLabelCreations']['parameters']['query']>, 'cursor'>;
/** The error body every refusal has (spec "Errors"): branch on `error.code`. */
export type ErrorBody = components['schemas']['Error'];
export type ErrorCode = ErrorBody['error']['code'];
