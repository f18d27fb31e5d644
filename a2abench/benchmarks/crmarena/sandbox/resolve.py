"""Field paths -> SQL: relationship joins, polymorphic lookups, computed Name, typed values.

A `Scope` belongs to one SELECT (the main query, a child subquery or a semi-join). It owns
the LEFT JOINs its relationship paths need; every table alias carries the scope's prefix,
so nested selects never collide. Identifiers reach SQL only after they matched the bound
schema, and are quoted; values are always bound parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .catalog import NAME_ENTITY_FIELDS
from .errors import SalesforceError, no_such_column, no_such_relationship, positioned
from .nodes import FieldPath
from .schema import Field, OrgSchema, SObject

MAX_PARENT_LEVELS = 5   # Salesforce's limit on parent relationship hops in one path


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class RelStep:
    """One relationship hop of a selected path, for rebuilding nested records."""

    key: str                  # canonical relationship name, e.g. "Account", "Owner"
    id_sql: str               # Id of the related record (NULL when the lookup is empty)
    type_sql: str | None      # polymorphic: SQL giving the related record's real type
    type_name: str            # attributes type ('Name' for polymorphic lookups)


@dataclass(frozen=True)
class Resolved:
    sql: str
    field: Field
    steps: tuple[RelStep, ...]
    numeric_storage: bool = True   # False when a number column is declared as text

    @property
    def key(self) -> str:
        return self.field.name

    @property
    def identity(self) -> tuple[str, ...]:
        return (*(s.key.lower() for s in self.steps), self.field.name.lower())


@dataclass
class _Join:
    aliases: list[tuple[str, SObject]]     # one per target (several when polymorphic)
    polymorphic: bool
    step: RelStep


@dataclass
class Scope:
    schema: OrgSchema
    obj: SObject
    alias: str | None                      # the FROM alias the query declared, if any
    prefix: str
    text: str
    numeric_text: frozenset[tuple[str, str]] = frozenset()
    joins: list[str] = field(default_factory=list)
    _paths: dict[tuple[str, ...], _Join] = field(default_factory=dict)
    _count: int = 0

    @property
    def base(self) -> str:
        return f"{self.prefix}t0"

    def from_sql(self) -> str:
        table = quote(self.obj.table or self.obj.name)
        return " ".join([f"{table} AS {self.base}", *self.joins])

    # -- resolution ----------------------------------------------------------------
    def resolve(self, path: FieldPath) -> Resolved:
        parts = self._strip_prefix(path.parts)
        if len(parts) - 1 > MAX_PARENT_LEVELS:
            raise positioned("MALFORMED_QUERY", self.text, path.pos,
                             "SOQL statements cannot query relationships that are more than "
                             f"{MAX_PARENT_LEVELS} levels away from the root entity object.")
        current, aliases, poly = self.obj, [(self.base, self.obj)], False
        steps: list[RelStep] = []
        for depth, rel in enumerate(parts[:-1]):
            if poly:
                raise no_such_relationship(self.text, path.pos, rel)
            ref = current.relationships.get(rel.lower())
            if ref is None:
                raise no_such_relationship(self.text, path.pos, rel)
            join = self._join(tuple(p.lower() for p in parts[:depth + 1]), aliases[0][0],
                              ref)
            steps.append(join.step)
            aliases, poly = join.aliases, join.polymorphic
            current = aliases[0][1]
        leaf = parts[-1]
        if poly:
            return self._poly_leaf(leaf, aliases, steps, path)
        fdef = current.field(leaf)
        if fdef is None:
            raise no_such_column(self.text, path.pos, leaf, current.name)
        numeric = (current.name, fdef.name) not in self.numeric_text
        return Resolved(self.column_sql(aliases[0][0], fdef), fdef, tuple(steps), numeric)

    def _strip_prefix(self, parts: tuple[str, ...]) -> tuple[str, ...]:
        if len(parts) > 1:
            head = parts[0].lower()
            if self.alias and head == self.alias.lower():
                return parts[1:]
            if head == self.obj.name.lower() and head not in self.obj.relationships:
                return parts[1:]   # SOQL accepts `Case.Subject` when querying Case
        return parts

    @staticmethod
    def column_sql(alias: str, fdef: Field) -> str:
        if fdef.derived == "compound_name":
            return (f"NULLIF(TRIM(COALESCE({alias}.\"FirstName\", '') || ' ' || "
                    f"COALESCE({alias}.\"LastName\", '')), '')")
        return f"{alias}.{quote(fdef.column or fdef.name)}"

    def _join(self, key: tuple[str, ...], parent_alias: str, ref: Field) -> _Join:
        if key in self._paths:
            return self._paths[key]
        col = f"{parent_alias}.{quote(ref.column or ref.name)}"
        aliases: list[tuple[str, SObject]] = []
        for target in ref.targets:
            tobj = self.schema.object(target)
            if tobj is None:
                continue
            self._count += 1
            alias = f"{self.prefix}t{self._count}"
            idf = tobj.field("Id")
            id_col = quote(idf.column if idf and idf.column else "Id")
            self.joins.append(f"LEFT JOIN {quote(tobj.table or tobj.name)} AS {alias} "
                              f"ON {alias}.{id_col} = {col}")
            aliases.append((alias, tobj))
        if not aliases:
            raise SalesforceError("INVALID_FIELD", f"relationship {ref.relationship} has no "
                                  "target table in this org")
        poly = ref.polymorphic
        ids = [f"{a}.\"Id\"" for a, _ in aliases]
        id_sql = ids[0] if len(ids) == 1 else f"COALESCE({', '.join(ids)})"
        type_sql = None
        if poly:
            whens = " ".join(f"WHEN {a}.\"Id\" IS NOT NULL THEN '{o.name}'" for a, o in aliases)
            type_sql = f"CASE {whens} END"
        step = RelStep(ref.relationship or ref.name, id_sql, type_sql,
                       "Name" if poly else aliases[0][1].name)
        join = _Join(aliases, poly, step)
        self._paths[key] = join
        return join

    def _poly_leaf(self, leaf: str, aliases: list[tuple[str, SObject]],
                   steps: list[RelStep], path: FieldPath) -> Resolved:
        allowed = {n.lower(): n for n in NAME_ENTITY_FIELDS}
        if leaf.lower() not in allowed:
            raise no_such_column(self.text, path.pos, leaf, "Name")
        name = allowed[leaf.lower()]
        if name == "Type":
            return Resolved(steps[-1].type_sql or "NULL", Field("Type", "picklist"),
                            tuple(steps))
        parts = [(a, f) for a, o in aliases if (f := o.field(name)) is not None]
        if not parts:
            raise no_such_column(self.text, path.pos, leaf, "Name")
        exprs = [self.column_sql(a, f) for a, f in parts]
        sql = exprs[0] if len(exprs) == 1 else f"COALESCE({', '.join(exprs)})"
        return Resolved(sql, parts[0][1], tuple(steps))


def not_filterable(scope: Scope, pos: int, fdef: Field, verb: str) -> SalesforceError:
    return positioned("INVALID_FIELD", scope.text, pos,
                      f"field '{fdef.name}' can not be {verb} in a query call")
