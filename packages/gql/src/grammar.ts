// Generated automatically by nearley, version 2.20.1
// http://github.com/Hardmath123/nearley
// Bypasses TS6133. Allow declared but unused functions.
// @ts-ignore
function id(d: any[]): any { return d[0]; }
declare var pipe: any;
declare var kw_where: any;
declare var kw_or: any;
declare var kw_and: any;
declare var kw_not: any;
declare var minus: any;
declare var lparen: any;
declare var rparen: any;
declare var colon: any;
declare var lbracket: any;
declare var rbracket: any;
declare var kw_in: any;
declare var string: any;
declare var word: any;
declare var number: any;
declare var duration: any;
declare var datetime: any;
declare var eq: any;
declare var neq: any;
declare var gt: any;
declare var gte: any;
declare var lt: any;
declare var lte: any;
declare var comma: any;
declare var kw_asc: any;
declare var kw_desc: any;
declare var kw_by: any;
declare var kw_time: any;
declare var kw_from: any;
declare var kw_last: any;
declare var kw_since: any;
declare var kw_until: any;
declare var kw_limit: any;
declare var kw_top: any;
declare var kw_sort: any;
declare var kw_fields: any;
declare var kw_count: any;
declare var kw_count_distinct: any;
declare var kw_sum: any;
declare var kw_avg: any;
declare var kw_min: any;
declare var kw_max: any;
declare var kw_p50: any;
declare var kw_p75: any;
declare var kw_p90: any;
declare var kw_p95: any;
declare var kw_p99: any;

import { lexer } from './lexer';
import * as n from './ast';

interface NearleyToken {
  value: any;
  [key: string]: any;
};

interface NearleyLexer {
  reset: (chunk: string, info: any) => void;
  next: () => NearleyToken | undefined;
  save: () => any;
  formatError: (token: never) => string;
  has: (tokenType: string) => boolean;
};

interface NearleyRule {
  name: string;
  symbols: NearleySymbol[];
  postprocess?: (d: any[], loc?: number, reject?: {}) => any;
};

type NearleySymbol = string | { literal: any } | { test: (token: any) => boolean };

interface Grammar {
  Lexer: NearleyLexer | undefined;
  ParserRules: NearleyRule[];
  ParserStart: string;
};

const grammar: Grammar = {
  Lexer: lexer,
  ParserRules: [
    {"name": "query", "symbols": ["segment"], "postprocess": n.list},
    {"name": "query", "symbols": ["query", (lexer.has("pipe") ? {type: "pipe"} : pipe), "segment"], "postprocess": n.append},
    {"name": "segment", "symbols": [(lexer.has("kw_where") ? {type: "kw_where"} : kw_where), "orExpr"], "postprocess": n.whereSegment},
    {"name": "segment", "symbols": ["orExpr"], "postprocess": n.segment},
    {"name": "orExpr", "symbols": ["andExpr"], "postprocess": id},
    {"name": "orExpr", "symbols": ["orExpr", (lexer.has("kw_or") ? {type: "kw_or"} : kw_or), "andExpr"], "postprocess": n.or},
    {"name": "andExpr", "symbols": ["unary"], "postprocess": id},
    {"name": "andExpr", "symbols": ["andExpr", (lexer.has("kw_and") ? {type: "kw_and"} : kw_and), "unary"], "postprocess": n.andExplicit},
    {"name": "andExpr", "symbols": ["andExpr", "unary"], "postprocess": n.andImplicit},
    {"name": "unary", "symbols": [(lexer.has("kw_not") ? {type: "kw_not"} : kw_not), "unary"], "postprocess": n.not},
    {"name": "unary", "symbols": [(lexer.has("minus") ? {type: "minus"} : minus), "unary"], "postprocess": n.not},
    {"name": "unary", "symbols": ["atom"], "postprocess": id},
    {"name": "atom", "symbols": [(lexer.has("lparen") ? {type: "lparen"} : lparen), "orExpr", (lexer.has("rparen") ? {type: "rparen"} : rparen)], "postprocess": n.group},
    {"name": "atom", "symbols": ["condition"], "postprocess": id},
    {"name": "atom", "symbols": ["clause"], "postprocess": id},
    {"name": "condition", "symbols": ["field", (lexer.has("colon") ? {type: "colon"} : colon), "value"], "postprocess": n.colon},
    {"name": "condition", "symbols": ["field", (lexer.has("colon") ? {type: "colon"} : colon), (lexer.has("lbracket") ? {type: "lbracket"} : lbracket), "values", (lexer.has("rbracket") ? {type: "rbracket"} : rbracket)], "postprocess": n.colonList},
    {"name": "condition", "symbols": ["field", (lexer.has("colon") ? {type: "colon"} : colon), "comparison", "value"], "postprocess": n.colonComparison},
    {"name": "condition", "symbols": ["field", "comparison", "value"], "postprocess": n.compare},
    {"name": "condition", "symbols": ["field", (lexer.has("kw_in") ? {type: "kw_in"} : kw_in), "list"], "postprocess": n.inList},
    {"name": "condition", "symbols": ["field", (lexer.has("kw_not") ? {type: "kw_not"} : kw_not), (lexer.has("kw_in") ? {type: "kw_in"} : kw_in), "list"], "postprocess": n.notInList},
    {"name": "condition", "symbols": [(lexer.has("string") ? {type: "string"} : string)], "postprocess": n.searchPhrase},
    {"name": "condition", "symbols": ["searchWord"], "postprocess": n.searchWord},
    {"name": "searchWord", "symbols": [(lexer.has("word") ? {type: "word"} : word)], "postprocess": id},
    {"name": "searchWord", "symbols": [(lexer.has("number") ? {type: "number"} : number)], "postprocess": id},
    {"name": "searchWord", "symbols": [(lexer.has("duration") ? {type: "duration"} : duration)], "postprocess": id},
    {"name": "searchWord", "symbols": [(lexer.has("datetime") ? {type: "datetime"} : datetime)], "postprocess": id},
    {"name": "comparison", "symbols": [(lexer.has("eq") ? {type: "eq"} : eq)], "postprocess": n.comparison},
    {"name": "comparison", "symbols": [(lexer.has("neq") ? {type: "neq"} : neq)], "postprocess": n.comparison},
    {"name": "comparison", "symbols": [(lexer.has("gt") ? {type: "gt"} : gt)], "postprocess": n.comparison},
    {"name": "comparison", "symbols": [(lexer.has("gte") ? {type: "gte"} : gte)], "postprocess": n.comparison},
    {"name": "comparison", "symbols": [(lexer.has("lt") ? {type: "lt"} : lt)], "postprocess": n.comparison},
    {"name": "comparison", "symbols": [(lexer.has("lte") ? {type: "lte"} : lte)], "postprocess": n.comparison},
    {"name": "list", "symbols": [(lexer.has("lbracket") ? {type: "lbracket"} : lbracket), "values", (lexer.has("rbracket") ? {type: "rbracket"} : rbracket)], "postprocess": n.bracketed},
    {"name": "list", "symbols": [(lexer.has("lparen") ? {type: "lparen"} : lparen), "values", (lexer.has("rparen") ? {type: "rparen"} : rparen)], "postprocess": n.bracketed},
    {"name": "values", "symbols": ["value"], "postprocess": n.list},
    {"name": "values", "symbols": ["values", (lexer.has("comma") ? {type: "comma"} : comma), "value"], "postprocess": n.append},
    {"name": "field", "symbols": ["fieldWord"], "postprocess": n.name},
    {"name": "field", "symbols": [(lexer.has("string") ? {type: "string"} : string)], "postprocess": n.name},
    {"name": "fieldWord", "symbols": [(lexer.has("word") ? {type: "word"} : word)], "postprocess": id},
    {"name": "fieldWord", "symbols": ["aggregateWord"], "postprocess": id},
    {"name": "fieldWord", "symbols": [(lexer.has("kw_asc") ? {type: "kw_asc"} : kw_asc)], "postprocess": id},
    {"name": "fieldWord", "symbols": [(lexer.has("kw_desc") ? {type: "kw_desc"} : kw_desc)], "postprocess": id},
    {"name": "value", "symbols": ["valueToken"], "postprocess": n.literal},
    {"name": "valueToken", "symbols": [(lexer.has("word") ? {type: "word"} : word)], "postprocess": id},
    {"name": "valueToken", "symbols": [(lexer.has("string") ? {type: "string"} : string)], "postprocess": id},
    {"name": "valueToken", "symbols": [(lexer.has("number") ? {type: "number"} : number)], "postprocess": id},
    {"name": "valueToken", "symbols": [(lexer.has("duration") ? {type: "duration"} : duration)], "postprocess": id},
    {"name": "valueToken", "symbols": [(lexer.has("datetime") ? {type: "datetime"} : datetime)], "postprocess": id},
    {"name": "valueToken", "symbols": ["aggregateWord"], "postprocess": id},
    {"name": "valueToken", "symbols": ["controlWord"], "postprocess": id},
    {"name": "valueToken", "symbols": [(lexer.has("kw_and") ? {type: "kw_and"} : kw_and)], "postprocess": id},
    {"name": "valueToken", "symbols": [(lexer.has("kw_or") ? {type: "kw_or"} : kw_or)], "postprocess": id},
    {"name": "valueToken", "symbols": [(lexer.has("kw_not") ? {type: "kw_not"} : kw_not)], "postprocess": id},
    {"name": "valueToken", "symbols": [(lexer.has("kw_in") ? {type: "kw_in"} : kw_in)], "postprocess": id},
    {"name": "valueToken", "symbols": [(lexer.has("kw_by") ? {type: "kw_by"} : kw_by)], "postprocess": id},
    {"name": "valueToken", "symbols": [(lexer.has("kw_time") ? {type: "kw_time"} : kw_time)], "postprocess": id},
    {"name": "valueToken", "symbols": [(lexer.has("kw_asc") ? {type: "kw_asc"} : kw_asc)], "postprocess": id},
    {"name": "valueToken", "symbols": [(lexer.has("kw_desc") ? {type: "kw_desc"} : kw_desc)], "postprocess": id},
    {"name": "controlWord", "symbols": [(lexer.has("kw_from") ? {type: "kw_from"} : kw_from)], "postprocess": id},
    {"name": "controlWord", "symbols": [(lexer.has("kw_where") ? {type: "kw_where"} : kw_where)], "postprocess": id},
    {"name": "controlWord", "symbols": [(lexer.has("kw_last") ? {type: "kw_last"} : kw_last)], "postprocess": id},
    {"name": "controlWord", "symbols": [(lexer.has("kw_since") ? {type: "kw_since"} : kw_since)], "postprocess": id},
    {"name": "controlWord", "symbols": [(lexer.has("kw_until") ? {type: "kw_until"} : kw_until)], "postprocess": id},
    {"name": "controlWord", "symbols": [(lexer.has("kw_limit") ? {type: "kw_limit"} : kw_limit)], "postprocess": id},
    {"name": "controlWord", "symbols": [(lexer.has("kw_top") ? {type: "kw_top"} : kw_top)], "postprocess": id},
    {"name": "controlWord", "symbols": [(lexer.has("kw_sort") ? {type: "kw_sort"} : kw_sort)], "postprocess": id},
    {"name": "controlWord", "symbols": [(lexer.has("kw_fields") ? {type: "kw_fields"} : kw_fields)], "postprocess": id},
    {"name": "aggregateWord", "symbols": [(lexer.has("kw_count") ? {type: "kw_count"} : kw_count)], "postprocess": id},
    {"name": "aggregateWord", "symbols": [(lexer.has("kw_count_distinct") ? {type: "kw_count_distinct"} : kw_count_distinct)], "postprocess": id},
    {"name": "aggregateWord", "symbols": ["numericFunction"], "postprocess": id},
    {"name": "numericFunction", "symbols": [(lexer.has("kw_sum") ? {type: "kw_sum"} : kw_sum)], "postprocess": id},
    {"name": "numericFunction", "symbols": [(lexer.has("kw_avg") ? {type: "kw_avg"} : kw_avg)], "postprocess": id},
    {"name": "numericFunction", "symbols": [(lexer.has("kw_min") ? {type: "kw_min"} : kw_min)], "postprocess": id},
    {"name": "numericFunction", "symbols": [(lexer.has("kw_max") ? {type: "kw_max"} : kw_max)], "postprocess": id},
    {"name": "numericFunction", "symbols": [(lexer.has("kw_p50") ? {type: "kw_p50"} : kw_p50)], "postprocess": id},
    {"name": "numericFunction", "symbols": [(lexer.has("kw_p75") ? {type: "kw_p75"} : kw_p75)], "postprocess": id},
    {"name": "numericFunction", "symbols": [(lexer.has("kw_p90") ? {type: "kw_p90"} : kw_p90)], "postprocess": id},
    {"name": "numericFunction", "symbols": [(lexer.has("kw_p95") ? {type: "kw_p95"} : kw_p95)], "postprocess": id},
    {"name": "numericFunction", "symbols": [(lexer.has("kw_p99") ? {type: "kw_p99"} : kw_p99)], "postprocess": id},
    {"name": "clause$ebnf$1", "symbols": [(lexer.has("colon") ? {type: "colon"} : colon)], "postprocess": id},
    {"name": "clause$ebnf$1", "symbols": [], "postprocess": () => null},
    {"name": "clause", "symbols": [(lexer.has("kw_from") ? {type: "kw_from"} : kw_from), "clause$ebnf$1", "sourceName"], "postprocess": n.from},
    {"name": "clause$ebnf$2", "symbols": [(lexer.has("colon") ? {type: "colon"} : colon)], "postprocess": id},
    {"name": "clause$ebnf$2", "symbols": [], "postprocess": () => null},
    {"name": "clause", "symbols": [(lexer.has("kw_last") ? {type: "kw_last"} : kw_last), "clause$ebnf$2", "durationValue"], "postprocess": n.last},
    {"name": "clause$ebnf$3", "symbols": [(lexer.has("colon") ? {type: "colon"} : colon)], "postprocess": id},
    {"name": "clause$ebnf$3", "symbols": [], "postprocess": () => null},
    {"name": "clause", "symbols": [(lexer.has("kw_since") ? {type: "kw_since"} : kw_since), "clause$ebnf$3", "boundValue"], "postprocess": n.bound},
    {"name": "clause$ebnf$4", "symbols": [(lexer.has("colon") ? {type: "colon"} : colon)], "postprocess": id},
    {"name": "clause$ebnf$4", "symbols": [], "postprocess": () => null},
    {"name": "clause", "symbols": [(lexer.has("kw_until") ? {type: "kw_until"} : kw_until), "clause$ebnf$4", "boundValue"], "postprocess": n.bound},
    {"name": "clause$ebnf$5", "symbols": [(lexer.has("colon") ? {type: "colon"} : colon)], "postprocess": id},
    {"name": "clause$ebnf$5", "symbols": [], "postprocess": () => null},
    {"name": "clause", "symbols": [(lexer.has("kw_limit") ? {type: "kw_limit"} : kw_limit), "clause$ebnf$5", "integer"], "postprocess": n.count},
    {"name": "clause$ebnf$6", "symbols": [(lexer.has("colon") ? {type: "colon"} : colon)], "postprocess": id},
    {"name": "clause$ebnf$6", "symbols": [], "postprocess": () => null},
    {"name": "clause", "symbols": [(lexer.has("kw_top") ? {type: "kw_top"} : kw_top), "clause$ebnf$6", "integer"], "postprocess": n.count},
    {"name": "clause$ebnf$7", "symbols": [(lexer.has("colon") ? {type: "colon"} : colon)], "postprocess": id},
    {"name": "clause$ebnf$7", "symbols": [], "postprocess": () => null},
    {"name": "clause", "symbols": [(lexer.has("kw_sort") ? {type: "kw_sort"} : kw_sort), "clause$ebnf$7", "sortKeys"], "postprocess": n.sort},
    {"name": "clause$ebnf$8", "symbols": [(lexer.has("colon") ? {type: "colon"} : colon)], "postprocess": id},
    {"name": "clause$ebnf$8", "symbols": [], "postprocess": () => null},
    {"name": "clause", "symbols": [(lexer.has("kw_fields") ? {type: "kw_fields"} : kw_fields), "clause$ebnf$8", "fieldList"], "postprocess": n.fields},
    {"name": "clause", "symbols": ["aggregation"], "postprocess": id},
    {"name": "clause", "symbols": ["aggregation", (lexer.has("kw_by") ? {type: "kw_by"} : kw_by), "groupList"], "postprocess": n.groupedBy},
    {"name": "sourceName", "symbols": [(lexer.has("word") ? {type: "word"} : word)], "postprocess": n.name},
    {"name": "durationValue", "symbols": [(lexer.has("duration") ? {type: "duration"} : duration)], "postprocess": n.duration},
    {"name": "boundValue", "symbols": [(lexer.has("datetime") ? {type: "datetime"} : datetime)], "postprocess": n.literal},
    {"name": "boundValue", "symbols": [(lexer.has("string") ? {type: "string"} : string)], "postprocess": n.literal},
    {"name": "boundValue", "symbols": ["durationValue"], "postprocess": id},
    {"name": "integer", "symbols": [(lexer.has("number") ? {type: "number"} : number)], "postprocess": n.literal},
    {"name": "sortKeys", "symbols": ["sortKey"], "postprocess": n.list},
    {"name": "sortKeys", "symbols": ["sortKeys", (lexer.has("comma") ? {type: "comma"} : comma), "sortKey"], "postprocess": n.append},
    {"name": "sortKey", "symbols": ["sortField"], "postprocess": n.sortKey},
    {"name": "sortKey", "symbols": ["sortField", (lexer.has("kw_asc") ? {type: "kw_asc"} : kw_asc)], "postprocess": n.sortKey},
    {"name": "sortKey", "symbols": ["sortField", (lexer.has("kw_desc") ? {type: "kw_desc"} : kw_desc)], "postprocess": n.sortKey},
    {"name": "sortField", "symbols": ["field"], "postprocess": id},
    {"name": "sortField", "symbols": [(lexer.has("kw_time") ? {type: "kw_time"} : kw_time)], "postprocess": n.name},
    {"name": "fieldList", "symbols": ["field"], "postprocess": n.list},
    {"name": "fieldList", "symbols": ["fieldList", (lexer.has("comma") ? {type: "comma"} : comma), "field"], "postprocess": n.append},
    {"name": "aggregation", "symbols": [(lexer.has("kw_count") ? {type: "kw_count"} : kw_count)], "postprocess": n.aggregate},
    {"name": "aggregation", "symbols": [(lexer.has("kw_count") ? {type: "kw_count"} : kw_count), (lexer.has("lparen") ? {type: "lparen"} : lparen), (lexer.has("rparen") ? {type: "rparen"} : rparen)], "postprocess": n.aggregate},
    {"name": "aggregation", "symbols": [(lexer.has("kw_count_distinct") ? {type: "kw_count_distinct"} : kw_count_distinct), (lexer.has("lparen") ? {type: "lparen"} : lparen), "field", (lexer.has("rparen") ? {type: "rparen"} : rparen)], "postprocess": n.aggregateOf},
    {"name": "aggregation", "symbols": ["numericFunction", (lexer.has("lparen") ? {type: "lparen"} : lparen), "field", (lexer.has("rparen") ? {type: "rparen"} : rparen)], "postprocess": n.aggregateOf},
    {"name": "groupList", "symbols": ["groupItem"], "postprocess": n.list},
    {"name": "groupList", "symbols": ["groupList", (lexer.has("comma") ? {type: "comma"} : comma), "groupItem"], "postprocess": n.append},
    {"name": "groupItem", "symbols": ["field"], "postprocess": n.groupField},
    {"name": "groupItem", "symbols": [(lexer.has("kw_time") ? {type: "kw_time"} : kw_time), (lexer.has("lparen") ? {type: "lparen"} : lparen), "durationValue", (lexer.has("rparen") ? {type: "rparen"} : rparen)], "postprocess": n.groupTime}
  ],
  ParserStart: "query",
};

export default grammar;
