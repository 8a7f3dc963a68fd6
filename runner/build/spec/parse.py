"""A spec's tables -> the network's nodes, checked before anything is built.

Each entry of ``layers`` is a layer (``type`` plus that type's arguments) or copies of a block
(``block``, with ``repeat = N`` identical copies, ``each = {arg = [v1, v2]}`` one copy per value,
``with = {arg = v}`` the same value in every copy). A block is a table of layers like
``layers``; inside it ``$arg`` stands for an argument and ``input`` for the copy's input. A layer
reads the previous layer unless it names its ``inputs`` (``pool[1]``: the second value a layer
returns). Nodes come out with dotted names (``stage1.0.conv1``), sorted so that each follows
its inputs.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from runner.build.spec.layer_types import (
    ATTR_ARGS,
    arguments,
    layer_types,
    not_spec_reason,
    param_attr,
    value_problem,
)
from runner.config import sources
from runner.errors import ConfigError

INPUT = "input"
RESERVED = ("type", "inputs", "block", "repeat", "each", "with")
# ``pool[1]`` in inputs: the second value that layer returns (a MaxPool2D with return_mask =
# true returns its output and the indices a MaxUnPool2D reads). A plain name is the first.
ITEM = re.compile(r"^(?P<name>.+)\[(?P<index>\d+)\]$")
# The tables a message names (model.layers.hidden, model.blocks.dense): the knobs they read
# (${model.hidden}) are the ones whose command-line values it may be about.
_TABLE = re.compile(r"\bmodel\.(?P<kind>layers|blocks)\.(?P<name>[A-Za-z0-9_\-]+)")
# A message about one layer of a block copy: model.blocks.dense (in model.layers.hidden).fc
_IN_BLOCK = re.compile(r"\bmodel\.blocks\.(?P<block>[\w\-]+) \(in model\.layers\."
                       r"(?P<entry>[\w\-]+)\)\.(?P<layer>[\w\-]+)")


def split_item(source: str) -> tuple[str, int | None]:
    """``"pool[1]"`` -> ``("pool", 1)``; a plain name -> ``(name, None)``."""
    match = ITEM.match(source)
    return (match["name"], int(match["index"])) if match else (source, None)


@dataclass
class Node:
    """One layer of the network: its dotted name, type, arguments and the nodes it reads."""

    name: str
    type: str
    cls: type
    args: dict
    inputs: list[str]
    where: str  # the config path that defined it, for messages
    consumers: list[str] = field(default_factory=list)


@dataclass
class _Scope:
    """Where names resolve while expanding: a copy of a block sees its own layers."""

    prefix: str  # "" at the top, "stage1.0." inside a copy
    input: str  # what ``input`` means here
    where: str
    values: dict  # $arg -> value
    blocks: tuple = ()  # the blocks being expanded, outermost first (a block may not hold itself)


def parse(spec) -> tuple[list[Node], str, dict[str, str]]:
    """(nodes in dependency order, the output node's name, {block entry or copy name: the node
    giving its output}) of a ``SpecConfig``; a mistake is a ``ConfigError`` that names the key
    and (under Hydra) the file or override that set it."""
    try:
        return _parse(spec)
    except ConfigError as exc:
        raise located(exc) from None


def located(exc: ConfigError) -> ConfigError:
    """``exc`` saying where the key it names was set (``sources.located``: the file, or an
    override of that key) and, under Hydra, which command-line overrides of the spec's knobs
    the tables it names read: the file writes ``${model.hidden}``, but the value at fault was
    typed as ``model.hidden=[0]``, which the file alone does not show."""
    where = sources.current()
    found = sources.located(exc, fallback="model", sources=where)
    typed = _knob_overrides(str(exc), where) if where is not None else {}
    if not typed:
        return found
    said = "; ".join(f"{text} (the knob ${{model.{knob}}}, which {', '.join(tables)} "
                     f"{'reads' if len(tables) == 1 else 'read'})"
                     for text, (knob, tables) in typed.items())
    message = str(found).rstrip()
    end = "" if message.endswith((".", "?", "!")) else "."
    verb = "was" if len(typed) == 1 else "were"
    error = ConfigError(f"{message}{end} Its value comes from the command line: {said} {verb} "
                        "set there.")
    error.located = True
    return error


def _knob_overrides(message: str, where) -> dict[str, tuple[str, list[str]]]:
    """{override as typed: (knob, the tables named in ``message`` that read it)} for the
    command-line overrides ``model.KNOB=...`` of knobs that those tables (as their files and
    overrides write them) read as ``${model.KNOB}``; every table when the message names none."""
    named = list(dict.fromkeys(f"model.{m['kind']}.{m['name']}"
                               for m in _TABLE.finditer(message)))
    typed = [text for text in where.overrides if "=" in text and not text.startswith("~")]
    texts = _table_texts(named, where.files, typed)
    texts.update(_block_layer_texts(message, where.files))
    found = {}
    for text in typed:
        key = text.partition("=")[0].lstrip("+").strip()
        knob = key[len("model."):].split(".")[0] if key.startswith("model.") else ""
        tables = [table for table, written in texts.items()
                  if knob and "${model." + knob + "}" in written]
        if tables:
            found[text] = (knob, tables)
    return found


def _table_texts(named: list[str], files, typed: list[str]) -> dict[str, str]:
    """{table: its text as the files and the overrides write it} of the ``named`` tables (all
    of them when none is named)."""
    texts: dict[str, str] = {}
    for source in files:
        model = source.table.get("model")
        for kind in ("layers", "blocks") if isinstance(model, dict) else ():
            for name, table in (model.get(kind) or {}).items():
                key = f"model.{kind}.{name}"
                if not named or key in named:
                    texts[key] = texts.get(key, "") + repr(table)
    for text in typed:  # an override may itself write a knob into a table
        key = text.partition("=")[0].lstrip("+").strip()
        table = ".".join(key.split(".")[:3])
        if table in texts or (not named and _TABLE.match(key)):
            texts[table] = texts.get(table, "") + text
    return texts


def _block_layer_texts(message: str, files) -> dict[str, str]:
    """For a message about one layer of a block copy (``model.blocks.dense (in
    model.layers.hidden).fc``): that layer's table, and of the entry using the block only the
    values of the ``$args`` the layer reads, so that a knob given to another layer of the
    block (``with = {dropout = "${model.dropout}"}``) is not blamed."""
    match = _IN_BLOCK.search(message)
    if not match:
        return {}
    texts: dict[str, str] = {}
    for source in files:
        model = source.table.get("model")
        if not isinstance(model, dict):
            continue
        layer = (model.get("blocks") or {}).get(match["block"], {}).get(match["layer"])
        entry = (model.get("layers") or {}).get(match["entry"])
        if layer is None or not isinstance(entry, dict):
            continue
        args = set(re.findall(r"\$(\w+)", repr(layer)))
        given = [entry.get(part) for part in ("each", "with")]
        used = {arg: values[arg] for values in given if isinstance(values, dict)
                for arg in args if arg in values}
        texts[f"model.blocks.{match['block']}"] = repr(layer)
        texts[f"model.layers.{match['entry']}"] = repr(used)
    return texts


def _parse(spec) -> tuple[list[Node], str, dict[str, str]]:
    types = layer_types()
    nodes: dict[str, Node] = {}
    aliases: dict[str, str] = {}  # a block entry's name -> its last copy's output node
    _expand(spec.layers, _Scope("", INPUT, "model.layers", {}), spec.blocks, types, nodes,
            aliases)
    for node in nodes.values():
        node.inputs = [_resolve(name, node, nodes, aliases) for name in node.inputs]
    order = _sorted(nodes)
    output = _output(spec.output, nodes, aliases)
    return order, output, {name: _through(name, aliases) for name in aliases}


def _expand(tables: dict, scope: _Scope, blocks: dict, types: dict, nodes: dict,
            aliases: dict) -> str:
    """Add the nodes of ``tables`` (layers of one scope); return the last one's name."""
    previous = scope.input
    for local, table in tables.items():
        where = f"{scope.where}.{local}"
        if scope.prefix and local == "output" and isinstance(table, str):
            continue  # a block's ``output = "name"`` setting (checked by _block_output)
        if not isinstance(table, dict):
            raise ConfigError(f"{where} = {table!r} is not a layer table: write {local} = "
                              "{ type = \"ReLU\", ... } (a block's only other key is "
                              "output = \"NAME\", its output layer).")
        if local == INPUT:
            raise ConfigError(f"{where}: '{INPUT}' is reserved for the network's input (inside "
                              "a block, the copy's input); give the layer another name.")
        if not local or any(mark in local for mark in ".[]"):
            raise ConfigError(f"{where}: the layer name {local!r} is not allowed: a name is not "
                              "empty and has no '.' (dots join a block copy's names, as in "
                              "stage1.0.conv1) and no '[' or ']' (pool[1] in inputs reads a "
                              "layer's second value); write it with '_' instead.")
        table = _substitute(table, scope, where)
        inputs = table.get("inputs")
        inputs = [inputs] if isinstance(inputs, str) else inputs
        if inputs is not None and not (isinstance(inputs, list) and inputs
                                       and all(isinstance(i, str) for i in inputs)):
            raise ConfigError(f"{where}.inputs = {inputs!r} is not valid: give a list of layer "
                              f"names (inputs = [\"a\", \"b\"]) or \"{INPUT}\", or leave "
                              "inputs out to read the layer before.")
        inputs = [_local(name, scope, where) for name in inputs] if inputs else [previous]
        name = scope.prefix + local
        if "block" in table:
            previous = _copies(name, table, inputs, where, blocks, types, nodes, aliases,
                               scope)
        else:
            nodes[name] = _node(name, table, inputs, where, types)
            previous = name
    return previous


def _copies(name, table, inputs, where, blocks, types, nodes, aliases, scope) -> str:
    """Expand ``block = "B"`` into its copies; return the last copy's output node."""
    block_name = table["block"]
    if "type" in table:
        raise ConfigError(f"{where} gives both type = {table['type']!r} and block = "
                          f"{block_name!r}: an entry is one layer (type) or copies of a block "
                          "(block), not both.")
    extra = sorted(set(table) - set(RESERVED))
    if extra:
        close = difflib.get_close_matches(extra[0], RESERVED, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise ConfigError(f"{where} uses block '{block_name}', so it takes only inputs, repeat, "
                          f"each and with, not {', '.join(extra)}{hint}: pass block arguments "
                          f"in with = {{{extra[0]} = ...}}.")
    if not isinstance(block_name, str):
        raise ConfigError(f"{where}.block = {block_name!r} is not a block name: give a string, "
                          f"block = \"NAME\" for a [blocks.NAME] table of this model "
                          f"({', '.join(sorted(blocks)) or 'it has none'}).")
    if block_name not in blocks:
        raise ConfigError(f"{where}.block = '{block_name}' is not a block of this model: "
                          f"{_known('the blocks are', list(blocks), block_name)}")
    if block_name in scope.blocks:
        path = " -> ".join([*scope.blocks, block_name])
        raise ConfigError(f"{where}.block = '{block_name}': the block uses itself ({path}), so "
                          "its copies would never end; a block may use other blocks only.")
    if len(inputs) != 1:
        raise ConfigError(f"{where} gives a block {len(inputs)} inputs: a block reads one "
                          f"input (inside it, '{INPUT}').")
    each = table.get("each", {}) or {}
    shared = table.get("with", {}) or {}
    if not isinstance(each, dict) or not isinstance(shared, dict):
        raise ConfigError(f"{where}: each and with are tables of block arguments "
                          "(each = {channels = [16, 32]}, with = {stride = 1}).")
    counts = {len(v) if isinstance(v, list) else -1 for v in each.values()}
    if -1 in counts or len(counts) > 1:
        raise ConfigError(f"{where}.each = {each!r} is not valid: every value of each is a "
                          "list, one entry per copy, and all lists have the same length.")
    repeat = table.get("repeat", 1)
    if isinstance(repeat, bool) or not isinstance(repeat, int):
        raise ConfigError(f"{where}.repeat = {repeat!r} is not valid: give a whole number of "
                          "copies (repeat = 2).")
    copies = counts.pop() if counts else repeat
    if "repeat" in table and each and repeat != copies:
        raise ConfigError(f"{where}: repeat = {table['repeat']} but each gives {copies} "
                          "values per argument; give one of them.")
    if copies < 0:
        raise ConfigError(f"{where}.repeat = {copies} is not allowed: give 0 or more copies (0: "
                          "the entry passes its input on, as if it were not there).")
    indexed = "repeat" in table or bool(each)
    body = blocks[block_name]
    _block_output(body, block_name)
    current = inputs[0]
    for index in range(copies):
        values = {**shared, **{key: value[index] for key, value in each.items()}}
        _check_placeholders(body, values, block_name, where)
        prefix = f"{name}.{index}." if indexed else f"{name}."
        inner = _Scope(prefix, current, f"model.blocks.{block_name} (in {where})", values,
                       (*scope.blocks, block_name))
        last = _expand(body, inner, blocks, types, nodes, aliases)
        output = body.get("output")
        current = prefix + output if isinstance(output, str) else last
        if indexed:
            aliases[f"{name}.{index}"] = current
    aliases[name] = current
    return current


def _block_output(body: dict, block: str) -> None:
    """A block's ``output`` names one of its own layers (or block entries)."""
    output = body.get("output")
    if isinstance(output, dict):
        raise ConfigError(f"model.blocks.{block}.output is a layer table, but a block's output "
                          "key names its output layer (output = \"NAME\"): give that layer "
                          "another name.")
    layers = [key for key, value in body.items() if isinstance(value, dict)]
    if not layers:  # its copies would pass their input on unchanged: a slip, never a design
        raise ConfigError(f"model.blocks.{block} has no layers: a block needs at least one "
                          "layer table (conv = { type = \"Conv2D\", ... }); to leave the entry "
                          "that uses it out, remove that entry.")
    if output is not None and output not in layers:
        raise ConfigError(f"model.blocks.{block}.output = {output!r} is not a layer of the "
                          f"block: {_known('its layers are', layers, str(output))}")


def _node(name: str, table: dict, inputs: list[str], where: str, types: dict) -> Node:
    kind = table.get("type")
    copying = sorted(key for key in ("repeat", "each", "with") if key in table)
    if copying:
        raise ConfigError(f"{where} has {', '.join(copying)}, which copy a block, but it is "
                          "one layer (type = ...): put its table in [blocks.NAME] and write "
                          "block = \"NAME\" here.")
    if kind is not None and not isinstance(kind, str):
        raise ConfigError(f"{where}.type = {kind!r} is not a layer type name: give a string, "
                          "type = \"Linear\" (a core.nn layer).")
    if not isinstance(kind, str):
        raise ConfigError(f"{where} has no type: give type = \"Linear\" (a core.nn layer) or "
                          "block = \"NAME\" (a block of this model).")
    if kind not in types and not_spec_reason(kind):
        raise ConfigError(f"{where}.type = '{kind}' is not a known layer type: it is a core.nn "
                          f"layer, but not one a spec can name: {not_spec_reason(kind)}.")
    if kind not in types:
        raise ConfigError(f"{where}.type = '{kind}' is not a known layer type: "
                          f"{_known('the types are', list(types), kind, 'docs/layers.md')}")
    cls = types[kind]
    args = {key: value for key, value in table.items() if key not in RESERVED}
    allowed = arguments(cls)
    for key, value in args.items():
        if key not in allowed:  # a slip of a key every table takes (input for inputs) too
            close = difflib.get_close_matches(key, [*allowed, "inputs"], n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ConfigError(f"{where}.{key} is not an argument of {kind}{hint}: {kind} takes "
                              f"{', '.join(allowed) or 'no arguments'}.")
        wanted = value_problem(cls, key, value)
        if wanted:
            raise ConfigError(f"{where}.{key} = {value!r} has the wrong type: {kind}'s {key} "
                              f"is {wanted}.")
        if key in ATTR_ARGS and isinstance(value, dict):
            param_attr(value, f"{where}.{key}")  # its settings are checked before anything runs
    return Node(name, kind, cls, args, inputs, where)


def _substitute(table: dict, scope: _Scope, where: str) -> dict:
    """``$arg`` strings (whole values, or items of lists) replaced by the copy's values."""
    def one(value, at: str):
        if isinstance(value, str) and value.startswith("$"):
            key = value[1:]
            if not scope.prefix:  # a layer of model.layers: no block gives it arguments
                raise ConfigError(f"{at} = '{value}' uses ${key}, but it is not inside a block: "
                                  "$NAME stands for a block argument, given where the block is "
                                  f"used (with = {{{key} = ...}}); a layer of model.layers "
                                  "takes plain values, or ${model.KNOB} for a knob of the spec.")
            if key not in scope.values:
                close = difflib.get_close_matches(key, list(scope.values), n=1)
                hint = f" (did you mean ${close[0]}, which it is given?)" if close else ""
                given = ", ".join(sorted(scope.values)) or "none"
                raise ConfigError(f"{at} uses ${key}, but no value was given for it{hint}: "
                                  f"the block's arguments given here are {given}; pass it "
                                  f"with with = {{{key} = ...}} or each = {{{key} = [...]}} "
                                  "where the block is used.")
            return scope.values[key]
        if isinstance(value, list):
            return [one(item, at) for item in value]
        if isinstance(value, dict):
            return {k: one(v, f"{at}.{k}") for k, v in value.items()}
        return value
    return {key: (value if key == "block" else one(value, f"{where}.{key}"))
            for key, value in table.items()}


def _check_placeholders(body: dict, values: dict, block: str, where: str) -> None:
    """Every value passed to a block is used by it as ``$name``; a misspelling on either side
    names both spellings and where the block uses its own."""
    used: dict[str, str] = {}  # $name -> the first key of the block that uses it

    def walk(value, key):
        if isinstance(value, str) and value.startswith("$"):
            used.setdefault(value[1:], key)
        elif isinstance(value, list):
            for item in value:
                walk(item, key)
        elif isinstance(value, dict):
            for name, item in value.items():
                walk(item, f"{key}.{name}")
    walk(body, f"model.blocks.{block}")
    unused = sorted(set(values) - set(used))
    if unused:
        wrong = unused[0]
        ungiven = sorted(set(used) - set(values))
        close = difflib.get_close_matches(wrong, ungiven, n=1) or \
            (ungiven if len(unused) == len(ungiven) == 1 else [])
        hint = (f", but it uses ${close[0]} (at {used[close[0]]}), which is given no value: "
                f"'{wrong}' and '{close[0]}' are two spellings of one argument; make them "
                "the same. The block's arguments are" if close else ": its arguments are")
        raise ConfigError(f"{where} passes {', '.join(unused)} to block '{block}', which does "
                          f"not use it{hint} "
                          f"{', '.join('$' + u for u in sorted(used)) or '(none)'}.")


def _local(name: str, scope: _Scope, where: str) -> str:
    """A name as written in a scope -> a node name (``input`` is the scope's input)."""
    _check_item(name, where)
    if name == INPUT:
        return scope.input
    if split_item(name)[0] == INPUT:
        raise ConfigError(f"{where}.inputs names '{name}', but '{INPUT}' is one value: [i] "
                          "reads the i-th value of a layer that returns several (from 0).")
    return scope.prefix + name if scope.prefix else name


def _check_item(name: str, where: str) -> None:
    """``[`` in an input is always an item (no layer name holds one): ``pool[-1]``,
    ``pool[a]`` or ``lstm[1][0]`` is a misspelt item, not a missing layer."""
    match = ITEM.match(name)
    if ("[" in name or "]" in name) and (not match or any(c in match["name"] for c in "[]")):
        raise ConfigError(f"{where}.inputs names {name!r}, which is not a layer or a layer's "
                          "value: NAME[i] reads value i of a layer that returns several, with i "
                          "a whole number from 0 (pool[1], the second value) and one [i] only "
                          "(no negative index, no value inside a value).")


def _through(name: str, aliases: dict) -> str:
    """The node (or ``input``) an alias stands for: a block whose ``output`` names a nested
    block entry gives an alias of an alias."""
    seen = set()
    while name in aliases and name not in seen:
        seen.add(name)
        name = aliases[name]
    return name


def _resolve(source: str, node: Node, nodes: dict, aliases: dict) -> str:
    """An input as written -> the node (or ``input``) it reads, keeping an ``[i]`` item."""
    name, index = split_item(source)
    found = _resolve_name(name, node, nodes, aliases)
    if index is not None and (found == INPUT or split_item(found)[1] is not None):
        what = "the network's input" if found == INPUT else f"'{found}'"
        raise ConfigError(f"{node.where}.inputs names '{source}', but the block entry "
                          f"'{name}' passes on {what} unchanged (it has no copies, or its "
                          "output is its input), and that is one value: [i] reads value i of a "
                          f"layer that returns several; read '{name}' itself.")
    return found if index is None else f"{found}[{index}]"


def _resolve_name(name: str, node: Node, nodes: dict, aliases: dict) -> str:
    if name == INPUT or name in nodes:
        return name
    if name in aliases:
        return _through(name, aliases)
    local = name.split(".")[-1]
    if "model.blocks." in node.where:  # a block's layers see only their own copy
        prefix = node.name[:len(node.name) - len(node.name.split(".")[-1])]
        own = [n[len(prefix):] for n in [*nodes, *aliases]
               if n.startswith(prefix) and "." not in n[len(prefix):]]
        raise ConfigError(f"{node.where}.inputs names '{local}', which is not a layer of its "
                          f"block: inside a block, inputs name the block's own layers or "
                          f"'{INPUT}' (the copy's input). "
                          f"{_known('The block has', [INPUT, *own], local)}")
    raise ConfigError(f"{node.where}.inputs names '{name}', which is not a layer here: "
                      f"{_known('the layers are', [INPUT, *nodes, *aliases], name)}")


def _sorted(nodes: dict) -> list[Node]:
    """Nodes in dependency order (file order where free); a cycle is an error."""
    pending = {name: {split_item(s)[0] for s in n.inputs} - {INPUT}
               for name, n in nodes.items()}
    for name, needs in pending.items():
        for source in needs:
            nodes[source].consumers.append(name)
    order: list[Node] = []
    while pending:  # the first node in file order whose inputs are all computed, each time
        ready = next((name for name, needs in pending.items() if not needs), None)
        if ready is None:
            cycle = ", ".join(sorted(_in_cycles(pending)))
            raise ConfigError(f"the layers {cycle} read each other in a cycle through their "
                              "inputs: a network must run from the input to the output.")
        order.append(nodes[ready])
        del pending[ready]
        for needs in pending.values():
            needs.discard(ready)
    return order


def _in_cycles(pending: dict) -> set:
    """The nodes on a cycle (or between cycles): what is left of ``pending`` once the nodes that
    no other pending node reads, which only wait on a cycle, are peeled off."""
    left = {name: set(needs) for name, needs in pending.items()}
    while True:
        read = set().union(*left.values())
        downstream = [name for name in left if name not in read]
        if not downstream:
            return set(left)
        for name in downstream:
            del left[name]


def _output(given: str, nodes: dict, aliases: dict) -> str:
    sinks = [name for name, node in nodes.items() if not node.consumers]
    if given and "[" in given:
        raise ConfigError(f"model.output = {given!r} is not allowed: the output is a whole "
                          "layer, whose first value the loss reads; NAME[i] is for inputs only. "
                          f"Name the layer ({split_item(given)[0]!r}).")
    if given:
        output = _through(given, aliases)
        if output not in nodes:
            raise ConfigError(f"model.output = '{given}' is not a layer: "
                              f"{_known('the layers are', list(nodes), given)}")
        sinks = [name for name in sinks if name != output]
    else:
        output, sinks = sinks[-1], sinks[:-1]
    if sinks:
        which = (f"the layers {', '.join(sinks)} are" if len(sinks) > 1
                 else f"the layer {sinks[0]} is")
        them = "them" if len(sinks) > 1 else "it"
        raise ConfigError(f"{which} computed but nothing consumes {them} (the output is "
                          f"{output}): name {them} in a later layer's inputs, remove {them}, or "
                          "choose the output with model.output.")
    return output


def _known(intro: str, names: list[str], wrong: str, listed_in: str = "") -> str:
    lowered = {name.lower(): name for name in names}
    close = difflib.get_close_matches(wrong.lower(), list(lowered), n=3)
    hint = f"did you mean {', '.join(lowered[c] for c in close)}? " if close else ""
    shown = ", ".join(sorted(names))
    if len(names) > 60 and listed_in:
        shown = f"listed in {listed_in}"
    return f"{hint}{intro} {shown}."
