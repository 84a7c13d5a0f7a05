# GQL grammar. Regenerate src/grammar.ts with `pnpm --filter @tlm/gql run grammar`; a test fails when the
# committed file differs from a fresh compile. Tokens come from src/lexer.ts (whitespace already dropped).
@preprocessor typescript
@{%
import { lexer } from './lexer';
import * as n from './ast';
%}
@lexer lexer

# A query is segments separated by '|'; a segment mixes conditions and clauses (colon and pipeline style alike).
query -> segment                        {% n.list %}
       | query %pipe segment            {% n.append %}

segment -> %kw_where orExpr             {% n.whereSegment %}
         | orExpr                       {% n.segment %}

# Precedence, loosest first: OR, AND (explicit or implied by juxtaposition), NOT / '-'.
orExpr -> andExpr                       {% id %}
        | orExpr %kw_or andExpr         {% n.or %}

andExpr -> unary                        {% id %}
         | andExpr %kw_and unary        {% n.andExplicit %}
         | andExpr unary                {% n.andImplicit %}

unary -> %kw_not unary                  {% n.not %}
       | %minus unary                   {% n.not %}
       | atom                           {% id %}

atom -> %lparen orExpr %rparen          {% n.group %}
      | condition                       {% id %}
      | clause                          {% id %}

condition -> field %colon value                             {% n.colon %}
           | field %colon %lbracket values %rbracket        {% n.colonList %}
           | field %colon comparison value                  {% n.colonComparison %}
           | field comparison value                         {% n.compare %}
           | field %kw_in list                              {% n.inList %}
           | field %kw_not %kw_in list                      {% n.notInList %}
           | %string                                        {% n.searchPhrase %}
           | searchWord                                     {% n.searchWord %}

searchWord -> %word {% id %} | %number {% id %} | %duration {% id %} | %datetime {% id %}

comparison -> %eq {% n.comparison %} | %neq {% n.comparison %} | %gt {% n.comparison %}
            | %gte {% n.comparison %} | %lt {% n.comparison %} | %lte {% n.comparison %}

list -> %lbracket values %rbracket      {% n.bracketed %}
      | %lparen values %rparen          {% n.bracketed %}

values -> value                         {% n.list %}
        | values %comma value           {% n.append %}

# Field names: words, quoted names, and the keywords that cannot start or continue a clause.
field -> fieldWord                      {% n.name %}
       | %string                        {% n.name %}

fieldWord -> %word {% id %} | aggregateWord {% id %} | %kw_asc {% id %} | %kw_desc {% id %}

# Any word is a value after ':' or an operator, keywords included (`status:in`, `event:count`).
value -> valueToken                     {% n.literal %}

valueToken -> %word {% id %} | %string {% id %} | %number {% id %} | %duration {% id %} | %datetime {% id %}
            | aggregateWord {% id %} | controlWord {% id %}
            | %kw_and {% id %} | %kw_or {% id %} | %kw_not {% id %} | %kw_in {% id %}
            | %kw_by {% id %} | %kw_time {% id %} | %kw_asc {% id %} | %kw_desc {% id %}

controlWord -> %kw_from {% id %} | %kw_where {% id %} | %kw_last {% id %} | %kw_since {% id %} | %kw_until {% id %}
             | %kw_limit {% id %} | %kw_top {% id %} | %kw_sort {% id %} | %kw_fields {% id %}

aggregateWord -> %kw_count {% id %} | %kw_count_distinct {% id %} | numericFunction {% id %}

numericFunction -> %kw_sum {% id %} | %kw_avg {% id %} | %kw_min {% id %} | %kw_max {% id %}
                 | %kw_p50 {% id %} | %kw_p75 {% id %} | %kw_p90 {% id %} | %kw_p95 {% id %} | %kw_p99 {% id %}

clause -> %kw_from %colon:? sourceName          {% n.from %}
        | %kw_last %colon:? durationValue       {% n.last %}
        | %kw_since %colon:? boundValue         {% n.bound %}
        | %kw_until %colon:? boundValue         {% n.bound %}
        | %kw_limit %colon:? integer            {% n.count %}
        | %kw_top %colon:? integer              {% n.count %}
        | %kw_sort %colon:? sortKeys            {% n.sort %}
        | %kw_fields %colon:? fieldList         {% n.fields %}
        | aggregation                           {% id %}
        | aggregation %kw_by groupList          {% n.groupedBy %}

sourceName -> %word                     {% n.name %}
durationValue -> %duration              {% n.duration %}
boundValue -> %datetime                 {% n.literal %}
            | %string                   {% n.literal %}
            | durationValue             {% id %}
integer -> %number                      {% n.literal %}

sortKeys -> sortKey                     {% n.list %}
          | sortKeys %comma sortKey     {% n.append %}
sortKey -> sortField                   {% n.sortKey %}
         | sortField %kw_asc            {% n.sortKey %}
         | sortField %kw_desc           {% n.sortKey %}
sortField -> field                      {% id %}
           | %kw_time                   {% n.name %}

fieldList -> field                      {% n.list %}
           | fieldList %comma field     {% n.append %}

aggregation -> %kw_count                                    {% n.aggregate %}
             | %kw_count %lparen %rparen                    {% n.aggregate %}
             | %kw_count_distinct %lparen field %rparen     {% n.aggregateOf %}
             | numericFunction %lparen field %rparen        {% n.aggregateOf %}

groupList -> groupItem                  {% n.list %}
           | groupList %comma groupItem {% n.append %}
groupItem -> field                                      {% n.groupField %}
           | %kw_time %lparen durationValue %rparen     {% n.groupTime %}
