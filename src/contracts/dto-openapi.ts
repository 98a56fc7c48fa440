/**
 * OpenAPI 3.0 schemas of DTO structures, generated from the same schema definitions that
 * validate and translate bodies: one component per structure and wire format (`FeeLineDto`
 * with JSON names, `FeeLineDtoXml` with the .NET names, wrapped lists and enum names).
 *
 * Reads the structures and the enum tables (so values an admin adds to
 * config/receipt-enums.yaml appear in the document); fills the `components` map it is given.
 */
import type { OpenApiSchema } from './body-contract';
import type { ReceiptEnums } from './enums';
import type { AnyStruct, EnumField, FieldSpec } from './dto-schema';
import type { WireFormat } from './body-contract';
import { ARRAYS_NAMESPACE } from './dto-xml-writer';

function componentName(struct: AnyStruct, format: WireFormat): string {
  return format === 'json' ? struct.name : `${struct.name}Xml`;
}

const XML_RULES =
  "Members are written in DataContract order (ordinal by name) and read in any order; an answer is in the request root's namespace, else the gateway's xml.responseNamespace (none by default)";

/** A `$ref` to the structure's component, adding it (and what it refers to) on first use. */
export function structSchemaRef(struct: AnyStruct, format: WireFormat, enums: ReceiptEnums, components: Record<string, OpenApiSchema>): OpenApiSchema {
  const name = componentName(struct, format);
  if (!Object.hasOwn(components, name)) {
    const description = format === 'xml' ? `${struct.description}. ${XML_RULES}` : struct.description;
    const component: OpenApiSchema = { type: 'object', description };
    // Set before recursing, so a structure that refers to itself cannot loop.
    components[name] = component;
    const properties: Record<string, OpenApiSchema> = {};
    const required: string[] = [];
    // XML members in the order the gateway writes them (DataContract order), JSON ones as the spec lists them.
    for (const field of format === 'xml' ? struct.xmlOrdered : struct.ordered) {
      const propertyName = format === 'json' ? field.json : field.spec.xml;
      properties[propertyName] = fieldSchema(field.spec, format, enums, components);
      if (field.spec.required) required.push(propertyName);
    }
    component.properties = properties;
    if (required.length > 0) component.required = required;
    if (format === 'xml') component.xml = { name: struct.name };
  }
  return { $ref: `#/components/schemas/${name}` };
}

function enumSchema(field: EnumField, format: WireFormat, enums: ReceiptEnums): OpenApiSchema {
  const table = enums.table(field.enumName);
  const legend = table.entries.map((e) => `${e.value} = ${e.name}${e.description ? ` (${e.description})` : ''}`).join('; ');
  const description = `${field.description}. ${field.enumName}, configurable in config/receipt-enums.yaml: ${legend}`;
  return format === 'json'
    ? { type: 'integer', format: 'int32', enum: table.entries.map((e) => e.value), description }
    : { type: 'string', enum: [...table.names], description };
}

function fieldSchema(spec: FieldSpec, format: WireFormat, enums: ReceiptEnums, components: Record<string, OpenApiSchema>): OpenApiSchema {
  const schema = baseSchema(spec, format, enums, components);
  if (spec.readOnly) schema.readOnly = true;
  return schema;
}

function baseSchema(spec: FieldSpec, format: WireFormat, enums: ReceiptEnums, components: Record<string, OpenApiSchema>): OpenApiSchema {
  const description = spec.description;
  switch (spec.kind) {
    case 'string':
      return { type: 'string', description };
    case 'int':
      return { type: 'integer', format: 'int32', description };
    case 'decimal':
      return { type: 'number', format: 'decimal', description: `${description}. Exact decimal (at most 28 decimal places, no exponent), passed on as written` };
    case 'bool':
      return { type: 'boolean', description };
    case 'datetime':
      return { type: 'string', format: 'date-time', description: `${description}. ISO 8601 date or date-time, kept as written` };
    case 'binary':
      return { type: 'string', format: 'byte', description: `${description}. Base64` };
    case 'enum':
      return enumSchema(spec, format, enums);
    case 'object':
      // In OpenAPI 3.0 a $ref ignores its siblings: allOf carries the description.
      return { allOf: [structSchemaRef(spec.struct, format, enums, components)], description };
    case 'list':
      return format === 'json'
        ? { type: 'array', items: structSchemaRef(spec.struct, format, enums, components), description }
        : {
            type: 'array',
            xml: { name: spec.xml, wrapped: true },
            items: structSchemaRef(spec.struct, format, enums, components),
            description: `${description}. One <${spec.struct.name}> element per item`,
          };
    case 'intMap':
      return format === 'json'
        ? {
            type: 'object',
            additionalProperties: { type: 'integer', format: 'int32' },
            description: `${description}. Keys are account ids written as numeric strings`,
          }
        : {
            type: 'array',
            xml: { name: spec.xml, wrapped: true },
            items: {
              type: 'object',
              xml: { name: spec.entry, namespace: ARRAYS_NAMESPACE, prefix: 'a' },
              properties: { Key: { type: 'integer', format: 'int32' }, Value: { type: 'integer', format: 'int32' } },
              required: ['Key', 'Value'],
            },
            description: `${description}. One <${spec.entry}> element (Key = account id, Value = days) per entry`,
          };
  }
}
