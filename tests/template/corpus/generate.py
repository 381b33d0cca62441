#!/usr/bin/env python3
"""Writes cases.json: each case's expected output is what Jinja2 itself renders.

    python3 tests/template/corpus/generate.py      (needs jinja2: Debian's python3-jinja2)

The engine never runs Python: the expectations are committed, and tests/template/corpus_test.cpp replays them.
A case is (name, template, context) with optional options; ERRORS lists templates Jinja2 also rejects, with the
start of the engine's own message.
"""
import json
import pathlib
import jinja2

HERE = pathlib.Path(__file__).parent

TOOLS = [{"name": "calculator", "description": "Evaluates arithmetic."},
         {"name": "search", "description": "Searches the web."}]
STEPS = [{"action": {"tool": "search", "tool_input": "weather", "log": "Thought: look it up\nAction: search\nAction Input: weather"},
          "observation": "sunny"}]
PEOPLE = [{"name": "Ann", "age": 31, "city": "Oslo"}, {"name": "bob", "age": 25, "city": "Rome"},
          {"name": "Cid", "age": 31, "city": "oslo"}]

CASES = [
    # --- output of literals and Python's str() ---
    ("str_int", "{{ 42 }}", {}),
    ("str_negative", "{{ -7 }}", {}),
    ("str_float", "{{ 1.0 }} {{ 2.5 }} {{ 0.1 }}", {}),
    ("str_float_exp", "{{ 1e-5 }} {{ 1e16 }} {{ 1.5e-7 }} {{ 123456789012345678.0 }}", {}),
    ("str_float_sum", "{{ 0.1 + 0.2 }}", {}),
    ("str_bools", "{{ true }} {{ false }} {{ True }} {{ False }}", {}),
    ("str_none", "{{ none }} {{ None }}", {}),
    ("str_list", "{{ [1, 'a', none, true, 2.5] }}", {}),
    ("str_nested_list", "{{ [[1, 2], ['x']] }}", {}),
    ("str_dict", "{{ {'a': 1, 'b': 'two'} }}", {}),
    ("str_tuple_as_list", "{{ (1, 2) | list }}", {}),
    ("str_quote_choice", "{{ [\"it's\", 'say \"hi\"', 'plain'] }}", {}),
    ("str_escapes_in_repr", "{{ ['a\\nb', 'tab\\t'] }}", {}),
    ("str_context_values", "{{ b }} {{ n }} {{ f }} {{ l }} {{ d }}",
     {"b": True, "n": None, "f": 3.0, "l": [1, [2]], "d": {"k": [1, {"z": None}]}}),
    ("str_unicode", "{{ s }} {{ [s] }}", {"s": "日本語 é"}),
    ("string_escapes", "{{ 'a\\tb\\\\c\\'d' }}", {}),
    ("string_concat_literals", "{{ 'a' 'b' }}", {}),
    ("double_quoted", '{{ "x\'y" }}', {}),
    # --- arithmetic ---
    ("div_true", "{{ 7 / 2 }} {{ 4 / 2 }} {{ -7 / 2 }}", {}),
    ("floordiv", "{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 // -2 }} {{ 7.5 // 2 }}", {}),
    ("modulo", "{{ 7 % 3 }} {{ -7 % 3 }} {{ 7 % -3 }} {{ 7.5 % 2 }}", {}),
    ("power", "{{ 2 ** 10 }} {{ 2 ** -1 }} {{ 2.0 ** 3 }}", {}),
    ("mixed_int_float", "{{ 1 + 2.0 }} {{ 3 * 1.5 }} {{ 10 - 0.5 }}", {}),
    ("precedence", "{{ 2 + 3 * 4 }} {{ (2 + 3) * 4 }} {{ 2 ** 3 ** 2 }} {{ -2 ** 2 }}", {}),
    ("string_repeat", "{{ 'ab' * 3 }}|{{ 3 * 'x' }}|{{ 'a' * 0 }}|", {}),
    ("list_add", "{{ [1, 2] + [3] }}", {}),
    ("string_add", "{{ 'a' + 'b' }}", {}),
    ("tilde_concat", "{{ 'n=' ~ 5 ~ ' ' ~ none ~ ' ' ~ true ~ ' ' ~ 1.5 }}", {}),
    ("unary_minus_var", "{{ -x }} {{ +x }}", {"x": 4}),
    ("bool_arith", "{{ true + 1 }}", {}),
    # --- comparison and logic ---
    ("compare_basic", "{{ 1 < 2 }} {{ 2 <= 2 }} {{ 3 > 4 }} {{ 4 >= 5 }} {{ 1 == 1 }} {{ 1 != 1 }}", {}),
    ("compare_chain", "{{ 1 < 2 < 3 }} {{ 1 < 3 < 2 }} {{ 3 > 2 > 1 }}", {}),
    ("compare_int_float", "{{ 1 == 1.0 }} {{ 0.5 < 1 }}", {}),
    ("compare_strings", "{{ 'a' < 'b' }} {{ 'abc' == 'abc' }} {{ 'B' < 'a' }}", {}),
    ("compare_lists", "{{ [1, 2] == [1, 2] }} {{ [1, 2] < [1, 3] }}", {}),
    ("in_string", "{{ 'ell' in 'hello' }} {{ 'z' in 'hello' }} {{ 'z' not in 'hello' }}", {}),
    ("in_list", "{{ 2 in [1, 2] }} {{ 3 in [1, 2] }} {{ 3 not in [1, 2] }}", {}),
    ("in_dict", "{{ 'a' in {'a': 1} }} {{ 'b' in {'a': 1} }}", {}),
    ("and_or_values", "{{ 0 or 'x' }} {{ 'a' and 'b' }} {{ '' or [] }} {{ none and 1 }}", {}),
    ("not", "{{ not 0 }} {{ not 'a' }} {{ not [] }} {{ not not 1 }}", {}),
    ("truthiness_if", "{% if [] %}a{% endif %}{% if {} %}b{% endif %}{% if '' %}c{% endif %}{% if 0 %}d{% endif %}"
     "{% if 0.0 %}e{% endif %}{% if none %}f{% endif %}{% if [0] %}g{% endif %}{% if ' ' %}h{% endif %}", {}),
    ("cond_expr", "{{ 'yes' if x else 'no' }} {{ 'yes' if y else 'no' }}", {"x": 1, "y": 0}),
    ("cond_expr_nested", "{{ 'a' if x > 2 else 'b' if x > 1 else 'c' }}", {"x": 2}),
    ("cond_expr_no_else_true", "{{ 'shown' if true }}", {}),
    ("cond_expr_no_else_false_strict", "[{{ 'hidden' if false }}]{{ ', ' if not last }}", {"last": True}),
    ("cond_expr_no_else_is_undefined", "{{ ('x' if false) is defined }}", {}),
    # --- access ---
    ("attr_access", "{{ p.name }} {{ p['age'] }}", {"p": PEOPLE[0]}),
    ("index_access", "{{ xs[0] }} {{ xs[-1] }} {{ xs.1 }}", {"xs": [10, 20, 30]}),
    ("nested_access", "{{ d.a.b[1].c }}", {"d": {"a": {"b": [0, {"c": "deep"}]}}}),
    ("slice_list", "{{ xs[1:] }} {{ xs[:2] }} {{ xs[::2] }} {{ xs[::-1] }} {{ xs[-2:] }}", {"xs": [1, 2, 3, 4]}),
    ("slice_string", "{{ s[1:3] }} {{ s[::-1] }} {{ s[-3:] }}", {"s": "hello"}),
    ("slice_out_of_range", "{{ xs[5:] }} {{ xs[1:100] }}", {"xs": [1, 2]}),
    ("string_index", "{{ s[0] }}{{ s[-1] }}", {"s": "abc"}),
    ("dict_key_with_space", "{{ d['a key'] }}", {"d": {"a key": 5}}),
    ("missing_key_default", "{{ d.missing | default('none here') }}", {"d": {}}),
    # --- methods ---
    ("str_methods_case", "{{ 'Hi'.upper() }} {{ 'Hi'.lower() }} {{ 'hello world'.title() }} {{ 'hELLO'.capitalize() }}", {}),
    ("str_strip", "[{{ '  x  '.strip() }}][{{ '  x  '.lstrip() }}][{{ '  x  '.rstrip() }}][{{ 'xxhixx'.strip('x') }}]", {}),
    ("str_split", "{{ 'a,b,,c'.split(',') }} {{ ' a  b '.split() }} {{ 'a b c'.split(' ', 1) }}", {}),
    ("str_startswith", "{{ 'hello'.startswith('he') }} {{ 'hello'.endswith('lo') }} {{ 'hello'.startswith('x') }}", {}),
    ("str_replace_method", "{{ 'aaa'.replace('a', 'b') }} {{ 'aaa'.replace('a', 'b', 2) }}", {}),
    ("str_format_method", "{{ '{} and {}'.format('a', 'b') }} {{ '{0}{0}'.format('x') }}", {}),
    ("str_join_method", "{{ ', '.join(['a', 'b']) }}", {}),
    ("dict_items", "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", {"d": {"z": 1, "a": 2}}),
    ("dict_keys_values", "{{ d.keys() | list }} {{ d.values() | list }}", {"d": {"z": 1, "a": 2}}),
    ("dict_get", "{{ d.get('a') }} {{ d.get('b') }} {{ d.get('b', 'dflt') }}", {"d": {"a": 1}}),
    # --- filters ---
    ("f_abs", "{{ -3 | abs }} {{ 2.5 | abs }}", {}),
    ("f_attr_is_getattr", "[{{ p | attr('name') }}]", {"p": PEOPLE[0]}, {"strict": False}),
    ("f_batch", "{{ [1, 2, 3, 4, 5] | batch(2) | list }} {{ [1, 2, 3] | batch(2, 'x') | list }}", {}),
    ("f_capitalize", "{{ 'hello WORLD' | capitalize }}", {}),
    ("f_center", "[{{ 'ab' | center(6) }}][{{ 'abc' | center(6) }}][{{ 'a' | center(4) }}]", {}),
    ("f_count_length", "{{ [1, 2] | count }} {{ 'héllo' | length }} {{ {'a': 1} | length }}", {}),
    ("f_default", "{{ x | default('d') }} {{ y | default('d') }} {{ '' | default('e') }}|{{ '' | default('e', true) }}",
     {"y": "given"}),
    ("f_d_alias", "{{ missing | d('alias') }}", {}),
    ("f_default_none", "{{ n | default('x') }}", {"n": None}),
    ("f_default_none_boolean", "{{ n | default('x', true) }}", {"n": None}),
    ("f_dictsort", "{% for k, v in d | dictsort %}{{ k }}{{ v }} {% endfor %}|{% for k, v in d | dictsort(by='value') %}{{ k }}{% endfor %}|{{ d | dictsort(reverse=true) | map('first') | join }}",
     {"d": {"b": 1, "a": 3, "c": 2}}),
    ("f_escape", "{{ '<a href=\"x\">&\\'</a>' | e }} {{ '<b>' | escape }}", {}),
    ("f_first_last", "{{ [3, 1, 2] | first }} {{ [3, 1, 2] | last }} {{ 'abc' | first }}", {}),
    ("f_float", "{{ '3.5' | float }} {{ 2 | float }} {{ 'x' | float }} {{ 'x' | float(1.5) }}", {}),
    ("f_format", "{{ '%s-%d' | format('a', 3) }} {{ '%.2f' | format(3.14159) }} {{ '%5s|%-5s|' | format('r', 'l') }}", {}),
    ("f_format_keywords", "{{ '%(a)s and %(b)s' | format(a=1, b='two') }}", {}),
    ("f_format_hex", "{{ '%x %X %o %05d %+d' | format(255, 255, 8, 42, 7) }}", {}),
    ("f_groupby", "{% for g in people | groupby('age') %}{{ g.grouper }}: {{ g.list | map(attribute='name') | join(',') }}; {% endfor %}",
     {"people": PEOPLE}),
    ("f_groupby_unpack", "{% for age, group in people | groupby('age') %}{{ age }}={{ group | length }} {% endfor %}",
     {"people": PEOPLE}),
    ("f_indent", "{{ 'a\\nb\\n\\nc' | indent }}", {}),
    ("f_indent_first_blank", "{{ 'a\\nb\\n\\nc' | indent(2, true, true) }}", {}),
    ("f_indent_string", "{{ 'a\\nb' | indent('> ') }}", {}),
    ("f_indent_trailing_newline", "{{ 'a\\nb\\n' | indent(2) }}|", {}),
    ("f_int", "{{ '42' | int }} {{ 3.9 | int }} {{ 'x' | int }} {{ 'x' | int(7) }} {{ '0x1A' | int(0, 16) }} {{ ' 12 ' | int }}", {}),
    ("f_items", "{{ d | items | map('last') | list }} {% for k, v in d | items %}{{ k }}{{ v }}{% endfor %}", {"d": {"a": 1, "b": 2}}),
    ("f_join", "{{ [1, 2, 3] | join }} {{ [1, 2, 3] | join(', ') }} {{ people | join(', ', attribute='name') }}",
     {"people": PEOPLE}),
    ("f_list", "{{ 'abc' | list }} {{ {'a': 1, 'b': 2} | list }}", {}),
    ("f_lower_upper", "{{ 'MiXeD' | lower }} {{ 'MiXeD' | upper }}", {}),
    ("f_map_attribute", "{{ people | map(attribute='name') | list }}", {"people": PEOPLE}),
    ("f_map_filter", "{{ ['a', 'b'] | map('upper') | list }} {{ ['1', '2'] | map('int') | sum }}", {}),
    ("f_map_default", "{{ [{'a': 1}, {}] | map(attribute='a', default=0) | list }}", {}),
    ("f_max_min", "{{ [3, 1, 2] | max }} {{ [3, 1, 2] | min }} {{ ['b', 'A', 'c'] | max }} {{ people | max(attribute='age') }}",
     {"people": PEOPLE}),
    ("f_replace", "{{ 'aXbXc' | replace('X', '-') }} {{ 'aXbXc' | replace('X', '', 1) }}", {}),
    ("f_reverse", "{{ 'abc' | reverse }} {{ [1, 2, 3] | reverse | list }}", {}),
    ("f_round", "{{ 3.14159 | round }} {{ 3.14159 | round(2) }} {{ 3.5 | round(0, 'floor') }} {{ 3.2 | round(0, 'ceil') }} {{ 2.675 | round(1) }}", {}),
    ("f_select_reject", "{{ range(10) | select('even') | list }} {{ range(10) | reject('odd') | list }} {{ [0, 1, '', 'a'] | select | list }}", {}),
    ("f_selectattr", "{{ people | selectattr('age', 'equalto', 31) | map(attribute='name') | list }}", {"people": PEOPLE}),
    ("f_rejectattr", "{{ people | rejectattr('age', 'gt', 30) | map(attribute='name') | list }}", {"people": PEOPLE}),
    ("f_selectattr_truthy", "{{ [{'on': true, 'n': 1}, {'on': false, 'n': 2}] | selectattr('on') | map(attribute='n') | list }}", {}),
    ("f_slice", "{{ [1, 2, 3, 4, 5, 6, 7] | slice(3) | list }} {{ [1, 2, 3, 4] | slice(3, 0) | list }}", {}),
    ("f_sort", "{{ [3, 1, 2] | sort }} {{ ['b', 'A', 'c'] | sort }} {{ ['b', 'A', 'c'] | sort(case_sensitive=true) }} {{ [3, 1] | sort(reverse=true) }}", {}),
    ("f_sort_attribute", "{{ people | sort(attribute='name') | map(attribute='name') | join(',') }}", {"people": PEOPLE}),
    ("f_string", "{{ 1 | string }} {{ none | string }} {{ [1] | string }}", {}),
    ("f_sum", "{{ [1, 2, 3] | sum }} {{ [1.5, 2] | sum }} {{ people | sum(attribute='age') }} {{ [1] | sum(start=10) }}",
     {"people": PEOPLE}),
    ("f_title", "{{ 'hello big world' | title }} {{ \"o'neil mc-x\" | title }}", {}),
    ("f_tojson", "{{ {'b': 1, 'a': [1, 'x<y & z\\'s'], 'c': none, 'd': true} | tojson }}", {}),
    ("f_tojson_unicode", "{{ '日本' | tojson }} {{ 1.5 | tojson }}", {}),
    ("f_tojson_indent", "{{ {'a': [1, 2], 'b': {}} | tojson(indent=2) }}", {}),
    ("f_trim", "[{{ '  x \\n' | trim }}] [{{ 'xxaxx' | trim('x') }}]", {}),
    ("f_truncate", "{{ 'the quick brown fox jumps' | truncate(12) }} {{ 'short' | truncate(12) }} {{ 'the quick brown fox jumps' | truncate(12, true) }} {{ 'the quick brown fox' | truncate(10, false, '>>', 0) }}", {}),
    ("f_unique", "{{ [1, 2, 1, 3] | unique | list }} {{ ['a', 'A', 'b'] | unique | list }} {{ ['a', 'A'] | unique(true) | list }}", {}),
    ("f_wordcount", "{{ 'one two  three' | wordcount }}", {}),
    ("f_wordwrap", "{{ 'the quick brown fox jumps over the lazy dog' | wordwrap(10) }}", {}),
    ("f_wordwrap_wrapstring", "{{ 'aaa bbb ccc' | wordwrap(5, wrapstring='|') }}", {}),
    ("f_safe", "{{ '<b>' | safe }}", {}),
    ("f_chain", "{{ '  Hello World  ' | trim | lower | replace('world', 'there') | title }}", {}),
    ("f_length_of_filtered", "{{ people | selectattr('city', 'equalto', 'Oslo') | list | length }}", {"people": PEOPLE}),
    # --- tests ---
    ("t_defined", "{{ x is defined }} {{ y is defined }} {{ y is undefined }} {{ x is not defined }}", {"x": 0}),
    ("t_none", "{{ none is none }} {{ 0 is none }} {{ x is none }}", {"x": None}),
    ("t_types", "{{ 'a' is string }} {{ 1 is number }} {{ 1.5 is number }} {{ 1 is integer }} {{ 1.5 is float }} {{ 1 is float }}", {}),
    ("t_booleans", "{{ true is boolean }} {{ 1 is boolean }} {{ true is true }} {{ false is false }} {{ 0 is false }}", {}),
    ("t_containers", "{{ {} is mapping }} {{ [] is mapping }} {{ [] is sequence }} {{ 'a' is sequence }} {{ 1 is sequence }} {{ [] is iterable }} {{ 1 is iterable }}", {}),
    ("t_even_odd", "{{ 2 is even }} {{ 3 is odd }} {{ 3 is even }}", {}),
    ("t_divisibleby", "{{ 9 is divisibleby 3 }} {{ 9 is divisibleby(4) }}", {}),
    ("t_comparisons", "{{ 1 is eq 1 }} {{ 1 is equalto 2 }} {{ 1 is ne 2 }} {{ 1 is lt 2 }} {{ 2 is le 2 }} {{ 3 is gt 2 }} {{ 2 is ge 3 }}", {}),
    ("t_in", "{{ 1 is in [1, 2] }} {{ 'a' is in 'cat' }}", {}),
    ("t_case", "{{ 'abc' is lower }} {{ 'ABC' is upper }} {{ 'Abc' is lower }}", {}),
    ("t_sameas", "{{ none is sameas none }} {{ true is sameas true }}", {}),
    ("t_callable", "{% macro m() %}{% endmacro %}{{ m is callable }} {{ 1 is callable }}", {}),
    ("t_not", "{{ 1 is not string }} {{ 'a' is not string }}", {}),
    # --- if ---
    ("if_elif_else", "{% for n in [0, 1, 5] %}{% if n > 1 %}many{% elif n == 1 %}one{% else %}none{% endif %} {% endfor %}", {}),
    ("if_nested", "{% if a %}{% if b %}ab{% else %}a{% endif %}{% endif %}", {"a": 1, "b": 0}),
    ("if_and_or", "{% if a and not b or c %}yes{% endif %}", {"a": 1, "b": 1, "c": 1}),
    ("if_defined_guard", "{% if x is defined and x %}x{% else %}no x{% endif %}", {}),
    # --- for ---
    ("for_basic", "{% for t in tools %}{{ t.name }}: {{ t.description }}\n{% endfor %}", {"tools": TOOLS}),
    ("for_loop_vars", "{% for x in 'abc' %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }} {% endfor %}", {}),
    ("for_loop_cycle", "{% for x in range(5) %}{{ loop.cycle('odd', 'even') }} {% endfor %}", {}),
    ("for_prev_next", "{% for x in [1, 2, 3] %}{{ loop.previtem | default('-') }}{{ x }}{{ loop.nextitem | default('-') }} {% endfor %}", {}),
    ("for_else", "{% for x in [] %}x{% else %}empty{% endfor %}", {}),
    ("for_else_not_taken", "{% for x in [1] %}x{% else %}empty{% endfor %}", {}),
    ("for_filter", "{% for x in range(10) if x is odd %}{{ x }}{{ loop.index }} {% endfor %}", {}),
    ("for_filter_else", "{% for x in [1, 3] if x is even %}{{ x }}{% else %}none even{% endfor %}", {}),
    ("for_unpack", "{% for a, b in [[1, 2], [3, 4]] %}{{ a }}+{{ b }} {% endfor %}", {}),
    ("for_dict", "{% for k in {'z': 1, 'a': 2} %}{{ k }}{% endfor %}", {}),
    ("for_string", "{% for c in 'héllo' %}[{{ c }}]{% endfor %}", {}),
    ("for_range", "{{ range(3) | list }} {{ range(1, 4) | list }} {{ range(10, 0, -3) | list }} {{ range(0) | list }}", {}),
    ("for_nested_loop", "{% for a in [1, 2] %}{% for b in 'xy' %}{{ a }}{{ b }}{{ loop.index }}{% endfor %}{{ loop.index }} {% endfor %}", {}),
    ("for_scratchpad", "{% for step in intermediate_steps %}{{ step.action.log }}\nObservation: {{ step.observation }}\nThought: {% endfor %}",
     {"intermediate_steps": STEPS}),
    ("for_loop_last_join", "{% for t in tools %}{{ t.name }}{% if not loop.last %}, {% endif %}{% endfor %}", {"tools": TOOLS}),
    ("for_over_items_filter", "{% for k, v in d | dictsort %}{{ k }}{{ v }}{% endfor %}", {"d": {"b": 2, "a": 1}}),
    # --- set and scoping ---
    ("set_basic", "{% set x = 5 %}{{ x }}", {}),
    ("set_expression", "{% set x = [1, 2] | map('string') | join('-') %}{{ x }}", {}),
    ("set_tuple", "{% set a, b = 1, 2 %}{{ a }}{{ b }}", {}),
    ("set_in_loop_does_not_leak", "{% set x = 'outer' %}{% for i in [1, 2] %}{% set x = i %}{{ x }}{% endfor %}{{ x }}", {}),
    ("set_in_if_leaks", "{% if true %}{% set y = 'in if' %}{% endif %}{{ y }}", {}),
    ("set_block", "{% set text %}Hello {{ name }}!{% endset %}[{{ text }}] {{ text | length }}", {"name": "Ann"}),
    ("set_shadow_context", "{% set name = 'local' %}{{ name }}", {"name": "context"}),
    ("namespace_counter", "{% set ns = namespace(n=0) %}{% for i in range(4) %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}", {}),
    ("namespace_flag", "{% set ns = namespace(found=false) %}{% for t in tools %}{% if t.name == 'search' %}{% set ns.found = true %}{% endif %}{% endfor %}{{ ns.found }}",
     {"tools": TOOLS}),
    ("namespace_attr_read", "{% set ns = namespace(a=1, b='x') %}{{ ns.a }}{{ ns.b }}", {}),
    # --- macros ---
    ("macro_basic", "{% macro hello(name) %}Hello {{ name }}!{% endmacro %}{{ hello('Ann') }} {{ hello('Bob') }}", {}),
    ("macro_defaults", "{% macro m(a, b=2, c='c') %}{{ a }}{{ b }}{{ c }}{% endmacro %}{{ m(1) }} {{ m(1, 3) }} {{ m(1, c='z') }}", {}),
    ("macro_keyword_call", "{% macro m(a, b) %}{{ a }}-{{ b }}{% endmacro %}{{ m(b=2, a=1) }}", {}),
    ("macro_sees_context", "{% macro m() %}{{ greeting }}{% endmacro %}{{ m() }}", {"greeting": "hi"}),
    ("macro_kwargs", "{% macro m(a) %}{{ a }}{% for k, v in kwargs | dictsort %}{{ k }}={{ v }}{% endfor %}{% endmacro %}{{ m(1, x=2) }}", {}),
    ("macro_in_loop", "{% macro item(t) %}- {{ t.name }}\n{% endmacro %}{% for t in tools %}{{ item(t) }}{% endfor %}", {"tools": TOOLS}),
    ("macro_recursive", "{% macro fact(n) %}{% if n <= 1 %}1{% else %}{{ n * (fact(n - 1) | int) }}{% endif %}{% endmacro %}{{ fact(5) }}", {}),
    ("macro_default_uses_param", "{% macro m(a, b=a * 2) %}{{ a }},{{ b }}{% endmacro %}{{ m(3) }}", {}),
    ("call_block", "{% macro box(title) %}[{{ title }}: {{ caller() }}]{% endmacro %}{% call box('T') %}body {{ x }}{% endcall %}", {"x": 1}),
    ("call_block_args", "{% macro each(items) %}{% for i in items %}{{ caller(i) }}{% endfor %}{% endmacro %}{% call(v) each([1, 2]) %}<{{ v }}>{% endcall %}", {}),
    ("call_block_sees_loop", "{% macro wrap() %}({{ caller() }}){% endmacro %}{% for i in [1, 2] %}{% call wrap() %}{{ i }}{% endcall %}{% endfor %}", {}),
    # --- filter blocks ---
    ("filter_block", "{% filter upper %}shout {{ x }}{% endfilter %}", {"x": "this"}),
    ("filter_block_chain", "{% filter trim | replace(' ', '_') %}  a b  {% endfilter %}", {}),
    ("filter_block_args", "{% filter indent(2, true) %}a\nb{% endfilter %}", {}),
    # --- raw ---
    ("raw_block", "{% raw %}{{ not }} {% if %}{% endraw %}", {}),
    ("raw_block_strip", "a {%- raw -%}  {{ x }}  {%- endraw -%} b", {}),
    # --- comments and whitespace control ---
    ("comment", "a{# ignored {{ x }} #}b", {}),
    ("comment_multiline", "a{# one\ntwo #}b", {}),
    ("ws_dash_both", "a  {%- if true -%}  b  {%- endif -%}  c", {}),
    ("ws_output_dash", "x {{- 1 -}} y", {}),
    ("ws_newlines", "line1\n{%- if true %}\nline2\n{%- endif %}\nline3", {}),
    ("ws_comment_dash", "a {#- c -#} b", {}),
    ("ws_for_lines", "{% for x in [1, 2] -%}\n  {{ x }}\n{%- endfor %}", {}),
    ("ws_default_keeps_newlines", "{% if true %}\nyes\n{% endif %}\n", {}),
    ("trailing_newline_dropped", "text\n", {}),
    ("trailing_two_newlines", "text\n\n", {}),
    ("trailing_newline_kept", "text\n", {}, {"keep_trailing_newline": True}),
    ("trim_blocks", "{% if true %}\nyes\n{% endif %}\nafter", {}, {"trim_blocks": True}),
    ("lstrip_blocks", "  {% if true %}\n  yes\n  {% endif %}", {}, {"lstrip_blocks": True}),
    ("trim_and_lstrip", "<ul>\n  {% for x in [1, 2] %}\n  <li>{{ x }}</li>\n  {% endfor %}\n</ul>", {}, {"trim_blocks": True, "lstrip_blocks": True}),
    ("lstrip_plus_disables", "  {%+ if true %}x{% endif %}", {}, {"lstrip_blocks": True}),
    ("trim_blocks_comment", "a{# c #}\nb", {}, {"trim_blocks": True}),
    ("lstrip_not_inline", "x {% if true %}y{% endif %}", {}, {"lstrip_blocks": True}),
    ("trim_blocks_output_untouched", "{{ 'a' }}\nb", {}, {"trim_blocks": True}),
    # --- undefined, lenient mode ---
    ("lenient_output", "[{{ missing }}]", {}, {"strict": False}),
    ("lenient_if", "{% if missing %}yes{% else %}no{% endif %}", {}, {"strict": False}),
    ("lenient_for", "{% for x in missing %}x{% else %}none{% endfor %}", {}, {"strict": False}),
    ("lenient_length", "{{ missing | length }}", {}, {"strict": False}),
    ("lenient_default", "{{ missing | default('d') }}", {}, {"strict": False}),
    ("lenient_missing_attr", "[{{ d.missing }}]", {"d": {}}, {"strict": False}),
    ("lenient_cond_no_else", "[{{ 'x' if false }}]", {}, {"strict": False}),
    ("strict_default_on_missing_attr", "{{ d.nope | default('fallback') }}", {"d": {}}),
    # --- dict literals and order ---
    ("dict_literal_order", "{% for k, v in {'z': 1, 'a': 2, 'm': 3}.items() %}{{ k }}{% endfor %}", {}),
    ("dict_literal_in_output", "{{ {'k': [1, 'v']} }}", {}),
    ("dict_global", "{{ dict(a=1, b=2) | dictsort | map('last') | list }} {{ dict(a=1)['a'] }}", {}),
    ("list_literal_trailing_comma", "{{ [1, 2,] }}", {}),
    ("empty_literals", "{{ [] }} {{ {} }} {{ '' }}|", {}),
    # --- loop controls, with, recursive loops (issue 13: the rest of Jinja2) ---
    ("loop_break", "{% for x in [1, 2, 3, 4] %}{% if x == 3 %}{% break %}{% endif %}{{ x }}{% endfor %}", {}),
    ("loop_continue", "{% for x in range(6) %}{% if x is even %}{% continue %}{% endif %}{{ x }}{% endfor %}", {}),
    ("loop_break_nested", "{% for a in [1, 2] %}{% for b in [1, 2, 3] %}{% if b > a %}{% break %}{% endif %}{{ a }}{{ b }} {% endfor %}|{% endfor %}", {}),
    ("loop_continue_keeps_index", "{% for x in 'abcd' %}{% if loop.index == 2 %}{% continue %}{% endif %}{{ loop.index }}{{ x }}{% endfor %}", {}),
    ("with_block", "{% with a = 1, b = 'two' %}{{ a }} {{ b }}{% endwith %}", {}),
    ("with_scope", "{% set x = 'outer' %}{% with x = 'inner' %}{% set y = 1 %}{{ x }}{% endwith %} {{ x }} {{ y is defined }}", {}),
    ("with_outer_values", "{% set a = 5 %}{% with a = a + 1, b = a %}{{ a }}{{ b }}{% endwith %}", {}),
    ("recursive_tree", "{% for n in tree recursive %}<{{ n.name }}:{{ loop.depth }}{% if n.children %}[{{ loop(n.children) }}]{% endif %}>{% endfor %}",
     {"tree": [{"name": "a", "children": [{"name": "b", "children": [{"name": "c", "children": []}]}, {"name": "d", "children": []}]},
              {"name": "e", "children": []}]}),
    ("recursive_depth0", "{% for x in [[1, [2]], 3] recursive %}{% if x is sequence %}{{ loop(x) }}{% else %}{{ x }}@{{ loop.depth0 }} {% endif %}{% endfor %}", {}),
    ("loop_changed", "{% for p in people | sort(attribute='age') %}{% if loop.changed(p.age) %}[{{ p.age }}]{% endif %}{{ p.name }} {% endfor %}",
     {"people": PEOPLE}),
    ("set_block_filter", "{% set shout | upper | replace('!', '?') %}hello {{ name }}!{% endset %}{{ shout }}", {"name": "ann"}),
    # --- string literals as Python reads them ---
    ("string_escapes_more", "{{ 'a\\x41\\u00e9\\U0001F600\\101\\a\\b\\f\\v|' | list | map('length') | list }} {{ '\\x41\\u00e9\\101' }}", {}),
    ("string_unknown_escape_kept", "{{ 'a\\qb' }} {{ 'c:\\dir' }}", {}),
    # --- Python's numbers ---
    ("round_half_even", "{{ 2.5 | round }} {{ 3.5 | round }} {{ -2.5 | round }} {{ 0.125 | round(2) }} {{ 2.675 | round(2) }} {{ 1.005 | round(2) }}", {}),
    ("round_ints", "{{ 5 | round }} {{ 125 | round(-1) }} {{ 135 | round(-1) }} {{ -125 | round(-1) }} {{ 1234.5 | round(-2) }} {{ -0.5 | round }}", {}),
    ("percent_operator", "{{ '%s items' % 3 }} {{ '%s-%s' % ('a', 'b') }} {{ '%(n)d%%' % {'n': 42} }} {{ '%.1f' % 2.25 }}", {}),
    # --- str, list and dict methods ---
    ("str_methods_search", "{{ 'banana'.count('a') }} {{ 'banana'.find('n') }} {{ 'banana'.rfind('n') }} {{ 'banana'.index('na') }} {{ 'banana'.find('z') }} {{ 'héllo'.find('l') }}", {}),
    ("str_methods_pad", "[{{ 'ab'.ljust(5, '.') }}][{{ 'ab'.rjust(5) }}][{{ 'abc'.center(8, '*') }}][{{ '42'.zfill(5) }}][{{ '-42'.zfill(5) }}]", {}),
    ("str_methods_split", "{{ 'a=b=c'.partition('=') | list }} {{ 'a=b=c'.rpartition('=') | list }} {{ 'a b  c'.rsplit(none, 1) }} {{ 'a,b,c'.rsplit(',', 1) }} {{ 'a\\nb\\r\\nc\\n'.splitlines() }}", {}),
    ("str_methods_is", "{{ 'ab1'.isalnum() }} {{ 'ab'.isalpha() }} {{ '12'.isdigit() }} {{ 'ab'.islower() }} {{ 'AB1'.isupper() }} {{ ' \\t'.isspace() }} {{ 'Ab Cd'.istitle() }} {{ ''.isalpha() }} {{ 'ab c'.isalpha() }}", {}),
    ("str_methods_affix", "{{ 'prefix-x'.removeprefix('prefix-') }} {{ 'x.txt'.removesuffix('.txt') }} {{ 'aBc'.swapcase() }} {{ 'Straße'.casefold() }}", {}),
    ("str_format_specs", "{{ '{:>5}|{:<4}|{:^7}|{:*>5}'.format('a', 'b', 'mid', 3) }} {{ '{:.2f} {:,} {:+d} {:05d}'.format(3.14159, 1234567, 5, -42) }} {{ '{:x} {:#x} {:o} {:b} {:.1%}'.format(255, 255, 8, 5, 0.256) }} {{ '{name}!{0}'.format('p', name='n') }} {{ '{!r}'.format('q') }}", {}),
    ("str_title_method", "{{ \"o'neil mc-x 1st\".title() }} {{ 'hello.world'.title() }} | {{ \"o'neil mc-x 1st\" | title }}", {}),
    ("list_dict_methods", "{{ [1, 2, 2].count(2) }} {{ ['a', 'b'].index('b') }} {{ {'a': 1}.copy() }} {{ [1].copy() }}", {}),
    # --- Unicode case ---
    ("unicode_case", "{{ 'éclair ß' | upper }} {{ 'ÉCOLE' | lower }} {{ 'élan vital' | title }} {{ 'éa'.capitalize() }} {{ 'ΑΒΓ'.lower() }} {{ 'привет' | upper }}", {}),
    # --- filters for markup and URLs ---
    ("f_filesizeformat", "{{ 1 | filesizeformat }} {{ 300 | filesizeformat }} {{ 12345 | filesizeformat }} {{ 1000000 | filesizeformat(true) }} {{ 3e12 | filesizeformat }}", {}),
    ("f_striptags", "{{ '<p>Hello <b>world</b></p>\\n  <!-- c --> bye' | striptags }}", {}),
    ("f_urlencode", "{{ 'a b&c/d' | urlencode }} {{ {'q': 'x y', 'n': 1} | urlencode }} {{ [['a', 1], ['b', 'é']] | urlencode }}", {}),
    ("f_xmlattr", "<div{{ {'class': 'x', 'id': 'y', 'skip': none, 'title': 'a \"b\"'} | xmlattr }}>", {}),
    ("f_pprint_forceescape", "{{ [1, 'a', none] | pprint }} {{ '<a>' | forceescape }}", {}),
    ("t_filter_test_escaped", "{{ 'upper' is filter }} {{ 'nosuch' is filter }} {{ 'even' is test }} {{ 'defined' is test }} {{ 'x' is escaped }} {{ 1 is lt 2 }}", {}),
    # --- prompts ---
    ("react_prompt", """Answer the following questions as best you can. You have access to the following tools:

{% for tool in tools %}{{ tool.name }}: {{ tool.description }}
{% endfor %}
Use the following format:

Question: the input question you must answer
Action: the action to take, should be one of [{{ tools | map(attribute='name') | join(', ') }}]

Question: {{ input }}
Thought:{{ agent_scratchpad }}""", {"tools": TOOLS, "input": "What is 2+2?", "agent_scratchpad": ""}),
    ("prompt_with_examples", "{% for ex in examples %}Q: {{ ex.q }}\nA: {{ ex.a }}\n\n{% endfor %}Q: {{ question }}\nA:",
     {"examples": [{"q": "1+1?", "a": "2"}, {"q": "Capital of France?", "a": "Paris"}], "question": "3*3?"}),
    ("prompt_system_user", "{% if system %}System: {{ system | trim }}\n{% endif %}User: {{ user }}", {"system": "  Be brief. ", "user": "hi"}),
    ("prompt_json_context", "Context: {{ ctx | tojson }}", {"ctx": {"user": "ann", "ids": [1, 2]}}),
    ("prompt_unicode", "観察: {{ obs }}\n思考: {{ thought }}", {"obs": "1200", "thought": "次は B"}),
    # --- the rest of the builtins audit (issue 28) ---
    ("literal_prefixed_ints", "{{ 0x1F }} {{ 0o17 }} {{ 0b101 }} {{ 1_000 }} {{ 1_0.5 }} {{ 0XfF }}", {}),
    ("plus_keeps_newline_after_tag", "a\n  {%+ if true %}x{% endif +%}\n  b\n{% if true %}\ny{% endif %}\n", {},
     {"trim_blocks": True, "lstrip_blocks": True}),
    ("for_nested_tuple_targets", "{% for a, (b, c) in [[1, [2, 3]], [4, 'xy']] %}{{ a }}{{ b }}{{ c }};{% endfor %}", {}),
    ("for_parenthesised_targets", "{% for (k, v) in d | dictsort %}{{ k }}={{ v }};{% endfor %}", {"d": {"b": 2, "a": 1}}),
    ("for_targets_from_strings", "{% for a, b in ['xy', 'zw'] %}{{ b }}{{ a }}{% endfor %}", {}),
    ("set_unpacks_a_string", "{% set a, b = 'xy' %}{{ b }}{{ a }}", {}),
    ("string_index_by_character", "{{ s[0] }}{{ s[-1] }}{{ s[1] }}|{{ s | length }}", {"s": "日本語 é"}),
    ("macro_name_and_arguments", "{% macro m(a, b=1) %}{% endmacro %}{{ m.name }} {{ m.arguments | join(',') }}", {}),
    ("macro_varargs_kwargs_caught", "{% macro m(a) %}{{ a }}{{ varargs | join(',') }}{{ kwargs | dictsort | length }}{% endmacro %}{{ m(1, 2, x=3) }}", {}),
    ("dictsort_by_value_list", "{{ {'a': 2, 'b': 1} | dictsort(by='value') | map('join', '=') | join(' ') }}", {}),
    ("test_callable_globals", "{% macro m() %}{% endmacro %}{{ m is callable }} {{ 1 is callable }} {{ range is callable }} "
     "{{ raise_exception is callable }}", {}),
    ("test_sameas_small_ints", "{{ none is sameas none }} {{ true is sameas true }} {{ 1 is sameas 1 }} "
     "{{ false is sameas 0 }} {{ 1 is sameas true }}", {}),
    ("test_upper_lower_need_a_cased_letter", "{{ 'ABC' is upper }} {{ 'abc' is lower }} {{ 'Abc' is upper }} "
     "{{ '1A' is upper }} {{ '123' is upper }} {{ '123' is lower }} {{ 'ÉTÉ' is upper }}", {}),
    ("big_int_against_float_exactly", "{{ 9007199254740993 == 9007199254740992.0 }} {{ 9007199254740993 > 9007199254740992.0 }} "
     "{{ 9007199254740992 == 9007199254740992.0 }} {{ [9007199254740993, 9007199254740992.0] | max }}", {}),
    ("striptags_unescapes", "{{ '<b>a &amp; b</b>  &lt;c&gt; &#39;q&#39;' | striptags }}", {}),
    ("str_expandtabs", "{{ 'a\\tbc\\td'.expandtabs() }}|{{ 'a\\tb\\n\\tc'.expandtabs(4) }}|{{ 'x\\ty'.expandtabs(0) }}", {}),
    ("cycler", "{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }}{{ c.current }}{{ c.next() }}"
     "{% set d = c %}{{ d.next() }}{{ c.current }}{{ c.reset() }}{{ c.current }}", {}),
    ("joiner", "{% set j = joiner(' | ') %}{% for x in [1, 2, 3] %}{{ j() }}{{ x }}{% endfor %}"
     "{% set k = joiner() %}[{{ k() }}{{ k() }}]", {}),
    ("globals_defined", "{{ cycler is defined }} {{ joiner is defined }} {{ lipsum is defined }}", {}),
    ("undefined_set_stays_undefined", "{% set x = nope %}{{ x is defined }}{% if x is undefined %} undefined{% endif %}"
     "[{{ x }}]", {}, {"strict": False}),
    ("undefined_concat_is_empty", "[{{ 'a' ~ nope ~ 'b' }}]{{ nope | length }}{% for c in nope %}x{% endfor %}", {},
     {"strict": False}),
    ("str_format_fields", "{{ '{0}-{1}-{0}'.format('a', 'b') }} {{ '{x}!'.format(x=1) }} {{ '{}{}'.format(1, 2) }}", {}),
    ("loop_cycle_args", "{% for x in [1, 2, 3] %}{{ loop.cycle('a', 'b') }}{% endfor %}", {}),
    ("float_of_string", "{{ '-2' | float }} {{ '3.5' | float }} {{ [1, 2] | sum(start=10) }}", {}),
    ("markup_plus_escapes_text", "{{ 'a'|safe + '\"<b>' }} {{ ('<x>'|safe) is escaped }} {{ '<x>' is escaped }} "
     "{{ '\"' + '<b>'|safe }}", {}),
    ("markup_escape_once_forceescape_always", "{{ '<a>'|safe|forceescape }} {{ '<a>'|safe|escape }} {{ '<a>'|e|e }} "
     "{{ ('<a>'|e) is escaped }}", {}),
    ("markup_format_escapes_arguments", "{% set m = '<i>%s</i>'|safe %}{{ m % '<b>' }} {{ m % 5 }} {{ '<' ~ m }} "
     "{{ ('x' ~ m) is escaped }} {{ m is escaped }}{% set n = m %}{{ n + '&' }}", {}),
    ("markup_from_tojson", "{{ {'a': '<'}|tojson + '<' }} {{ ({'a': 1}|tojson) is escaped }}", {}),
    ("dict_integer_keys", "{% set d = {1: 'a', 10: 'b', 2: 'c'} %}{{ d | dictsort | map('last') | join }} {{ d[10] }} "
     "{{ d }} {% for k in d %}{{ k + 1 }}{% endfor %} {{ d | tojson }} {{ d.get(2) }} {{ 10 in d }} {{ '10' in d }} "
     "{{ d | list }} {{ d | urlencode }}", {}),
    ("dict_other_keys", "{% set d = {none: 1, true: 2, 1.5: 3} %}{{ d }} {{ d[none] }} {{ d[1.5] }} {{ d[true] }}", {}),
    ("dict_integer_keys_threshold_lookup", "{% set b = {0: 0, 512: 128, 1024: 256} %}{% set ns = namespace(i=none) %}"
     "{% for k, v in b | dictsort %}{% if ns.i is none and 600 <= k %}{% set ns.i = v %}{% endif %}{% endfor %}"
     "{{ ns.i }} {{ b[512] }} {{ dict(b, x=1) | length }}", {}),
    ("pprint_as_python", "{{ d | pprint }}|{{ {'b': 1, 'a': 2} | pprint }}|{{ n | pprint }}|{{ s | pprint }}|"
     "{{ ml | pprint }}|{{ l | pprint }}|{{ [s, {'k': s}] | pprint }}|{{ {} | pprint }}{{ '' | pprint }}",
     {"d": {"b": 1, "a": [1, 2], "c": "x" * 30, "d": "y" * 30},
      "n": {"z": {"deep": ["alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho"] * 2,
                  "k": 1}, "a": None},
      "s": "word " * 40, "ml": "line one\nline two is longer " + "z" * 70 + "\nend", "l": list(range(40))}),
    ("pprint_counts_characters", "{{ u | pprint }}", {"u": {"日本": "語" * 90}}),
    ("str_format_indexed_fields", "{{ '{0[k]} {1}'.format({'k': 'v'}, 3) }} {{ '{a[0]}-{a[1][x]}'.format(a=[5, {'x': 6}]) }} "
     "", {}),
    ("call_with_star_args", "{% for x in [1, 2, 3] %}{{ loop.cycle(*['a', 'b']) }}{% endfor %} "
     "{% macro m(a, b=2) %}{{ a }}{{ b }}{% endmacro %}{{ m(*[7]) }} {{ m(**{'a': 8, 'b': 9}) }} {{ m(1, **{'b': 3}) }} "
     "{{ dict(**{'k': 1}) }}", {}),
    ("groupby_attribute_names", "{{ xs | groupby('k') | map(attribute='grouper') | join(',') }} "
     "{{ xs | groupby('k') | map(attribute='list') | map('length') | join(',') }}",
     {"xs": [{"k": "b"}, {"k": "a"}, {"k": "b"}]}),
    ("crlf_line_breaks_are_newlines", "a\r\n{% if true %}\r\nb {{ 'x\r\ny' }}\r\n{% endif %}\rc\r\n", {},
     {"trim_blocks": True}),
    ("undefined_attribute_tests_lenient", "{{ d.nope is string }} {{ d.nope is mapping }} {{ d.nope is none }} "
     "{{ d.nope is iterable }} {{ d.nope is number }} {{ d.nope != 1 }} {{ d.nope is eq(1) }}", {"d": {}},
     {"strict": False}),
    ("undefined_type_tests_strict", "{{ nope is string }} {{ nope is mapping }} {{ nope is none }} {{ nope is sequence }} "
     "{{ nope is callable }} {{ nope is false }}", {}),
    ("undefined_more_tests_lenient", "{{ nope is sequence }} {{ nope is lower }} {{ nope is in [1] }} {{ nope is callable }}",
     {}, {"strict": False}),
    ("selectattr_defined_undefined", "{{ xs | selectattr('k', 'defined') | map(attribute='k') | join(',') }}|"
     "{{ xs | selectattr('k', 'undefined') | list | length }}|{{ xs | rejectattr('k', 'undefined') | list | length }}",
     {"xs": [{"k": 1}, {}, {"k": 2}]}),
]

# Templates that Jinja2 rejects too; the second string is how the engine's message starts.
ERRORS = [
    ("err_undefined", "{{ nope }}", {}, "t.j2:1:4: undefined variable 'nope'"),
    ("err_undefined_in_if", "{% if nope %}{% endif %}", {}, "t.j2:1:7: undefined variable 'nope'"),
    ("err_undefined_attr_of_undefined", "{{ nope.x }}", {}, "t.j2:1:4: undefined variable 'nope'"),
    ("err_missing_attr_output", "{{ d.nope }}", {"d": {}}, "t.j2:1:5: 'd' has no attribute nope"),
    ("err_unclosed_if", "{% if true %}x", {}, "t.j2:1:15: unclosed 'if' block opened at line 1:1"),
    ("err_unclosed_for", "{% for x in y %}", {"y": []}, "t.j2:1:17: unclosed 'for' block opened at line 1:1"),
    ("err_unknown_tag", "{% generation %}x{% endgeneration %}", {}, "t.j2:1:4: unknown tag 'generation'"),
    ("err_unknown_filter", "{{ 1 | nosuch }}", {}, "t.j2:1:6: unknown filter 'nosuch'"),
    ("err_unknown_test", "{{ 1 is nosuch }}", {}, "t.j2:1:6: unknown test 'nosuch'"),
    ("err_endfor_without_for", "{% endfor %}", {}, "t.j2:1:4: unexpected 'endfor'"),
    ("err_unclosed_string", "{{ 'abc }}", {}, "t.j2:1:4: unterminated string literal"),
    ("err_unclosed_var", "{{ x ", {"x": 1}, "t.j2:1:1: unclosed tag: expected '}}'"),
    ("err_bad_bracket", "{{ (1 }}", {}, "t.j2:1:7: unexpected '}', expected ')'"),
    ("err_div_zero", "{{ 1 / 0 }}", {}, "t.j2:1:6: division by zero"),
    ("err_mod_zero", "{{ 1 % 0 }}", {}, "t.j2:1:6: integer division or modulo by zero"),
    ("err_add_types", "{{ 1 + 'a' }}", {}, "t.j2:1:6: unsupported operand types for +: 'int' and 'str'"),
    ("err_raise_exception", "{{ raise_exception('Roles must alternate') }}", {}, "t.j2:1:19: Roles must alternate"),
    ("err_namespace_attr_on_dict", "{% set d = {} %}{% set d.x = 1 %}", {}, "t.j2:1:17: cannot assign attribute on non-namespace object 'd'"),
    ("err_unpack_count", "{% for a, b in [[1, 2, 3]] %}{% endfor %}", {}, "t.j2:1:1: cannot unpack list of 3 items into 2 names"),
    ("err_compare_types", "{{ 1 < 'a' }}", {}, "t.j2:1:4: '<' not supported between instances of 'int' and 'str'"),
    ("err_iterate_int", "{% for x in 5 %}{% endfor %}", {}, "t.j2:1:13: 'int' object is not iterable"),
    ("err_macro_too_many_arguments", "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, 2) }}", {},
     "t.j2:1:42: macro 'm' takes not more than 1 argument(s)"),
    ("err_macro_unknown_keyword", "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(b=2) }}", {},
     "t.j2:1:42: macro 'm' takes no keyword argument 'b'"),
    ("err_macro_argument_twice", "{% macro m(a) %}{{ a }}{% endmacro %}{{ m(1, a=2) }}", {},
     "t.j2:1:42: macro 'm' takes no keyword argument 'a'"),
    ("err_dictsort_by", "{{ {'a': 1} | dictsort(by='x') }}", {}, "t.j2:1:13: dictsort: you can only sort by either"),
    ("err_undefined_plus", "{% set s = 'a' %}{{ s + nope }}", {}, "t.j2:1:25: undefined variable 'nope'"),
    ("err_undefined_tojson", "{{ nope | tojson }}", {}, "t.j2:1:4: tojson: undefined variable 'nope'"),
    ("err_undefined_minus", "{{ -nope }}", {}, "t.j2:1:5: undefined variable 'nope'"),
    ("err_cycler_without_values", "{% set c = cycler() %}", {}, "t.j2:1:18: cycler() expects at least one value"),
    ("err_undefined_iterable_test_strict", "{{ nope is iterable }}", {}, "t.j2:1:4: undefined variable 'nope'"),
    ("err_undefined_odd_test", "{{ nope is odd }}", {}, "t.j2:1:4: undefined variable 'nope'"),
    ("err_dict_unhashable_key", "{{ {[1]: 2} }}", {}, "t.j2:1:5: unhashable type: 'list'"),
]

CHAT_MESSAGES = {
    "single_user": [{"role": "user", "content": "Hello!"}],
    "system_user": [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "What is 2+2?"}],
    "multi_turn": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello! How can I help?"},
                   {"role": "user", "content": "  Tell me a joke.  "}],
    "system_multi": [{"role": "system", "content": "Be kind."}, {"role": "user", "content": "One"},
                     {"role": "assistant", "content": "Two"}, {"role": "user", "content": "Three"}],
    "unicode": [{"role": "user", "content": "日本語で答えて <ok> & \"quotes\""}],
    "bad_order": [{"role": "assistant", "content": "I start"}, {"role": "user", "content": "no"}],
}
CHAT_EXTRA = {"bos_token": "<s>", "eos_token": "</s>"}
# Formats of widely used open models, written for these tests after their public chat templates.
CHAT_TEMPLATES = {
    "chatml_qwen": {"extra": {}},
    "llama3": {"extra": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"}},
    "mistral_inst": {"extra": CHAT_EXTRA},
    "gemma": {"extra": {"bos_token": "<bos>", "eos_token": "<eos>"}},
    "phi3": {"extra": {"eos_token": "<|endoftext|>"}},
    "zephyr": {"extra": {"eos_token": "</s>"}},
    "llama2": {"extra": CHAT_EXTRA},
    "tools_namespace": {"extra": {"tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}], "date_string": "23 Nov 2026"}},
}

# Conversations with tool calls, tool results, reasoning and content as a list of parts, as transformers passes
# them (OpenAI's message shapes), for the templates below.
WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"},
                                                    "unit": {"type": "string"}}, "required": ["city"]}}}
TIME_TOOL = {"type": "function", "function": {
    "name": "get_time", "description": "The time in a zone.",
    "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}}}


def call(id_, name, arguments):
    return {"id": id_, "type": "function", "function": {"name": name, "arguments": arguments}}


RICH_MESSAGES = {
    "tool_round": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "What's the weather in Oslo?"},
        {"role": "assistant", "content": "", "tool_calls": [call("call12345", "get_weather", {"city": "Oslo"})]},
        {"role": "tool", "tool_call_id": "call12345", "name": "get_weather", "content": "{\"temp\": 21, \"sky\": \"clear\"}"},
        {"role": "assistant", "content": "It is 21 degrees and clear in Oslo."}],
    "two_calls": [
        {"role": "user", "content": "Weather and time in Tokyo?"},
        {"role": "assistant", "content": "Checking both.", "tool_calls": [
            call("callAAAAA", "get_weather", {"city": "Tokyo", "unit": "C"}),
            call("callBBBBB", "get_time", "{\"zone\": \"Asia/Tokyo\"}")]},
        {"role": "tool", "tool_call_id": "callAAAAA", "name": "get_weather", "content": "18C, rain"},
        {"role": "tool", "tool_call_id": "callBBBBB", "name": "get_time", "content": "09:30"}],
    "reasoning": [
        {"role": "user", "content": "What is 17 * 3?"},
        {"role": "assistant", "content": "51", "reasoning_content": "17 * 3 = 51."},
        {"role": "user", "content": "And 17 * 4?"},
        {"role": "assistant", "content": "<think>\n17 * 4 = 68\n</think>\n\n68"}],
    "parts": [
        {"role": "system", "content": [{"type": "text", "text": "Be brief."}]},
        {"role": "user", "content": [{"type": "text", "text": "What is in this picture? "}, {"type": "image"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "A cat on a mat."}]}],
    "unicode_tools": [
        {"role": "user", "content": "東京の天気は？ <b>&</b>"},
        {"role": "assistant", "content": None, "tool_calls": [call("call日本語です", "get_weather", {"city": "東京"})]}],
}
RICH_TEMPLATES = {
    "llama3_tools": {"extra": {"bos_token": "<|begin|>", "tools": [WEATHER_TOOL], "date_string": "26 Nov 2026"},
                     "conversations": ["tool_round", "two_calls", "unicode_tools"]},
    "llama3_tools_no_tools": {"file": "llama3_tools", "extra": {"bos_token": "<|begin|>", "date_string": "26 Nov 2026",
                                                                "tools_first_turn": False},
                              "conversations": ["reasoning"]},
    "qwen3_reasoning": {"extra": {"tools": [WEATHER_TOOL, TIME_TOOL]},
                        "conversations": ["tool_round", "two_calls", "reasoning", "parts", "unicode_tools"]},
    "qwen3_reasoning_plain": {"file": "qwen3_reasoning", "extra": {"enable_thinking": False},
                              "conversations": ["reasoning", "parts"]},
    "gemma_parts": {"extra": {"bos_token": "<bos>"}, "conversations": ["parts", "reasoning", "tool_round"]},
    "mistral_tools": {"extra": {"bos_token": "<s>", "eos_token": "</s>", "tools": [WEATHER_TOOL, TIME_TOOL]},
                      "conversations": ["tool_round", "two_calls", "unicode_tools"]},
    "channels_ns": {"extra": {"tools": [WEATHER_TOOL, TIME_TOOL], "documents": [{"title": "a", "text": "b"}]},
                    "conversations": ["tool_round", "two_calls", "reasoning"]},
    "channels_ns_bare": {"file": "channels_ns", "extra": {"reasoning_effort": "high"},
                         "conversations": ["reasoning"]},
}


def env_for(options, files):
    return jinja2.Environment(
        undefined=jinja2.StrictUndefined if options.get("strict", True) else jinja2.Undefined,
        trim_blocks=options.get("trim_blocks", False),
        lstrip_blocks=options.get("lstrip_blocks", False),
        keep_trailing_newline=options.get("keep_trailing_newline", False),
        extensions=["jinja2.ext.loopcontrols"],  # {% break %} and {% continue %}, which transformers enables too
        loader=jinja2.DictLoader(files))


def raise_exception(message):
    raise jinja2.TemplateError(message)


def hf_env():
    # How transformers compiles chat templates (apply_chat_template).
    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
    e = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    e.filters["tojson"] = tojson
    e.globals["raise_exception"] = raise_exception
    return e


def render_as_transformers(template, messages, add_generation_prompt, extra):
    # apply_chat_template passes tools and documents always, as None when there are none.
    context = dict(extra)
    tools = context.pop("tools", None)
    documents = context.pop("documents", None)
    try:
        return {"expected": template.render(messages=messages, tools=tools, documents=documents,
                                            add_generation_prompt=add_generation_prompt, **context)}
    except jinja2.TemplateError as e:
        return {"raised": str(e)}


def main():
    out = []
    names = set()
    for case in CASES:
        name, template, context = case[:3]
        options = case[3] if len(case) > 3 else {}
        assert name not in names, name
        names.add(name)
        files = options.pop("files", {})
        try:
            expected = env_for(options, files).from_string(template).render(context)
        except Exception as e:
            raise SystemExit(f"{name}: Jinja2 failed: {e}")
        out.append({"name": name, "template": template, "context": context, "options": options, "files": files,
                    "expected": expected})
    for name, template, context, message in ERRORS:
        assert name not in names, name
        names.add(name)
        env = env_for({}, {})
        env.globals["raise_exception"] = raise_exception
        try:
            env.from_string(template).render(context)
        except (jinja2.TemplateError, ZeroDivisionError, TypeError, ValueError, RuntimeError):
            pass
        else:
            raise SystemExit(f"{name}: Jinja2 renders this; it is not an error case")
        out.append({"name": name, "template": template, "context": context, "options": {}, "files": {},
                    "error": message})
    for model, spec in CHAT_TEMPLATES.items():
        source = (HERE / "chat" / f"{model}.jinja").read_text()
        template = hf_env().from_string(source)
        for conv, messages in CHAT_MESSAGES.items():
            for add_generation_prompt in (False, True):
                case = {"name": f"chat_{model}_{conv}_{'gen' if add_generation_prompt else 'nogen'}",
                        "chat_template": f"chat/{model}.jinja", "messages": messages,
                        "add_generation_prompt": add_generation_prompt, "context": spec["extra"]}
                case.update(render_as_transformers(template, messages, add_generation_prompt, spec["extra"]))
                out.append(case)
    for name, spec in RICH_TEMPLATES.items():
        model = spec.get("file", name)
        template = hf_env().from_string((HERE / "chat" / f"{model}.jinja").read_text())
        for conv in spec["conversations"]:
            messages = RICH_MESSAGES[conv]
            for add_generation_prompt in (False, True):
                case = {"name": f"chat_{name}_{conv}_{'gen' if add_generation_prompt else 'nogen'}",
                        "chat_template": f"chat/{model}.jinja", "messages": messages,
                        "add_generation_prompt": add_generation_prompt, "context": spec["extra"]}
                case.update(render_as_transformers(template, messages, add_generation_prompt, spec["extra"]))
                out.append(case)
    (HERE / "cases.json").write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {len(out)} cases to {HERE / 'cases.json'}")


if __name__ == "__main__":
    main()
