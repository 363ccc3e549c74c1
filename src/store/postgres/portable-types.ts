import {
  DataTypeNode,
  OperationNodeTransformer,
  RawNode,
  type ColumnDefinitionNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

/**
 * The migrations declare columns with the two types both engines share, `integer` and
 * `text`, and the store relies on SQLite's meaning of them. This plugin gives PostgreSQL
 * columns the same meaning, so one set of migrations serves both engines:
 * - `integer` becomes `bigint`: SQLite integers are 64-bit, PostgreSQL's `integer` is
 *   32-bit and would refuse (not just miss) a larger id or version in a query.
 * - `text` columns collate as "C": SQLite compares text by code point, PostgreSQL by the
 *   database's locale, which would reorder names in lists (`B` before or after `a`).
 */
export class PortableTypesPlugin implements KyselyPlugin {
  readonly #transformer = new PortableTypesTransformer();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#transformer.transformNode(args.node, args.queryId);
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}

class PortableTypesTransformer extends OperationNodeTransformer {
  protected override transformDataType(node: DataTypeNode): DataTypeNode {
    return node.dataType === 'integer' ? DataTypeNode.create('bigint') : node;
  }

  protected override transformColumnDefinition(node: ColumnDefinitionNode): ColumnDefinitionNode {
    const column = super.transformColumnDefinition(node);
    // The collation belongs right after the type, before any constraint.
    return DataTypeNode.is(column.dataType) && column.dataType.dataType === 'text'
      ? Object.freeze({ ...column, dataType: RawNode.createWithSql('text collate "C"') })
      : column;
  }
}
