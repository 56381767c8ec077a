import {
  getNamedType,
  GraphQLInt,
  isCompositeType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  OperationTypeNode,
  valueFromAST,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * Calculated query cost after Shopify's published rules: a scalar or enum costs 0, an object 1, a connection 2 plus,
 * requested, its page size (`first` or `last`) times one node's cost, or, actually, the cost of the nodes it returned;
 * a mutation field 10. Shopify deducts the requested cost before running a query and refunds down to the actual cost
 * after; the fake does the same. Shopify refines these rules in places: the fake keeps their shape (a large page costs
 * more, a query past the single-query limit is refused), not Shopify's exact figures.
 */
export interface Operation {
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

type Data = Record<string, unknown> | null | undefined;

export function requestedCost(op: Operation): number {
  return rootCost(op, undefined);
}

export function actualCost(op: Operation, data: Record<string, unknown>): number {
  return rootCost(op, data);
}

function rootCost(op: Operation, data: Data | undefined): number {
  const mutation = op.operation.operation === OperationTypeNode.MUTATION;
  const root = mutation ? op.schema.getMutationType() : op.schema.getQueryType();
  if (!root) return 0;
  const fields = op.operation.selectionSet.selections.length;
  return setCost(op, root, op.operation.selectionSet, data, data !== undefined) + (mutation ? 10 * fields : 0);
}

const isList = (type: GraphQLOutputType): boolean => isListType(isNonNullType(type) ? type.ofType : type);

function setCost(
  op: Operation,
  type: GraphQLCompositeType,
  set: SelectionSetNode,
  data: Data,
  actual: boolean,
): number {
  let total = 0;
  for (const selection of set.selections) {
    if (selection.kind !== Kind.FIELD) {
      const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? op.fragments.get(selection.name.value) : selection;
      const condition = fragment?.typeCondition ? op.schema.getType(fragment.typeCondition.name.value) : type;
      if (fragment && condition && isCompositeType(condition))
        total += setCost(op, condition, fragment.selectionSet, data, actual);
      continue;
    }
    total += fieldCost(op, type, selection, data, actual);
  }
  return total;
}

function fieldCost(op: Operation, type: GraphQLCompositeType, field: FieldNode, data: Data, actual: boolean): number {
  if (!(isObjectType(type) || isInterfaceType(type)) || !field.selectionSet) return 0;
  const definition = type.getFields()[field.name.value];
  const named = definition ? getNamedType(definition.type) : null;
  if (!definition || !named || !isCompositeType(named)) return 0;
  const value = actual ? data?.[field.alias?.value ?? field.name.value] : undefined;
  const inner = (v: unknown) => setCost(op, named, field.selectionSet!, v as Data, actual);
  if (named.name.endsWith('Connection')) {
    if (actual) return 2 + (value ? inner(value) : 0);
    return 2 + Math.max(pageSize(op, field, 'first'), pageSize(op, field, 'last'), 1) * inner(undefined);
  }
  if (actual && isList(definition.type) && Array.isArray(value))
    return value.reduce((sum: number, item) => sum + 1 + inner(item), 0);
  return 1 + (actual && !value ? 0 : inner(value));
}

function pageSize(op: Operation, field: FieldNode, name: string): number {
  const argument = field.arguments?.find((a) => a.name.value === name);
  if (!argument) return 0;
  return (valueFromAST(argument.value, GraphQLInt, op.variables) as number | undefined) ?? 0;
}
