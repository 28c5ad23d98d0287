/* Tests of the type checker of Tier 6 (compiler/typecheck.c): valid typed
 * grammars give no type error, whatever the order of their rules, and each
 * rule of assignability is accepted where it applies; invalid grammars give
 * the exact messages. The grammars and the expected messages are written by
 * hand from docs/language.md (A.6, Tier 6). */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/ast.h"
#include "grammar_errors.h"
#include "../runtime/alloc.h"

/* The errors of cc_check on src other than the refusals of what the engine does
 * not implement yet ("not supported yet: ..."), which come only when there is no
 * other error. */
static char *check_errors(const char *src)
{
    cc_errors errs = { 0 };
    ast_grammar *g = cc_parse(src, strlen(src), &errs);
    if (g) cc_check(g, &errs);
    int kept = 0;
    for (int i = 0; i < errs.n; i++) {
        if (strncmp(errs.items[i].msg, "not supported yet: ", 19) == 0) { rt_free(errs.items[i].msg); continue; }
        errs.items[kept++] = errs.items[i];
    }
    errs.n = kept;
    char *text = grammar_errors_text(&errs);
    ast_grammar_free(g);
    cc_errors_free(&errs);
    return text;
}

static void expect_check(const char *file, int line, const char *src, const char *expected)
{
    char *actual = check_errors(src);
    int ok = strcmp(actual, expected) == 0;
    if (!ok) fprintf(stderr, "\n%s:%d:\n  expected: %s\n  actual:   %s\n", file, line, expected, actual);
    CU_assertImplementation(ok, (unsigned)line, "errors equal", file, "", CU_FALSE);
    free(actual);
}
#define EXPECT_CHECK(src, expected) expect_check(__FILE__, __LINE__, (src), (expected))
#define EXPECT_VALID(src) expect_check(__FILE__, __LINE__, (src), "")

/* cc_typecheck itself, after the other checks resolved the calls: no error. */
static void expect_typecheck_clean(const char *file, int line, const char *src)
{
    cc_errors errs = { 0 };
    ast_grammar *g = cc_parse(src, strlen(src), &errs);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    cc_check(g, &errs);
    cc_errors fresh = { 0 };
    int n = cc_typecheck(g, &fresh);
    if (n != 0) fprintf(stderr, "\n%s:%d: %s\n", file, line, fresh.items[0].msg);
    CU_assertImplementation(n == 0 && fresh.n == 0, (unsigned)line, "no type error", file, "", CU_FALSE);
    ast_grammar_free(g);
    cc_errors_free(&errs);
    cc_errors_free(&fresh);
}
#define EXPECT_TYPECHECK_CLEAN(src) expect_typecheck_clean(__FILE__, __LINE__, (src))

/* ---- valid grammars ---- */

static const char calculator[] =
    "type Num terminal\n"
    "type Bin struct { L Expr, Op Match, R Expr }\n"
    "type Neg struct { X Expr }\n"
    "type Expr = Num | Bin | Neg\n"
    "def main: Expr = x:e \" \"* $$ -> $x\n"
    "def e: Expr = pratt {\n"
    "    skip \" \"*\n"
    "    operand num\n"
    "    operand \"(\" x:e \")\" -> $x\n"
    "    level { infix left \"+\" / \"-\" -> new Bin{L: $lhs, Op: $op, R: $rhs} }\n"
    "    level { prefix \"-\" -> new Neg{X: $rhs} }\n"
    "    level { infix right \"^\" -> new Bin{L: $lhs, Op: $op, R: $rhs} }\n"
    "}\n"
    "def sum: Expr = first:num rest:(o:\"+\" n:num)*\n"
    "    -> foldl($first, $rest, (acc, x) => new Bin{L: $acc, Op: $x.o, R: $x.n})\n"
    "def right: Expr = first:num rest:(-\"-\" n:num)*\n"
    "    -> foldr($first, $rest, (acc, x) => new Neg{X: $acc})\n"
    "def num: Num = (?0-9)+\n";

static const char json[] =
    "type Object struct { Members []Member }\n"
    "type Member struct { Key String, Value Value }\n"
    "type Array struct { Elements []Value }\n"
    "type String terminal\n"
    "type Number terminal\n"
    "type Literal terminal\n"
    "type Value = Object | Array | String | Number | Literal\n"
    "def main: Value = ws v:value ws $$ -> $v\n"
    "def value: Value = object / array / string / number / literal\n"
    "def object: Object = \"{\" ws ms:members? ws \"}\" -> new Object{Members: concat($ms)}\n"
    "def members = first:member rest:(-ws -\",\" -ws m:member)*\n"
    "    -> concat(list($first), map($rest, (r) => $r.m))\n"
    "def member: Member = k:string ws \":\" ws v:value -> new Member{Key: $k, Value: $v}\n"
    "def array: Array = \"[\" ws es:elements? ws \"]\" -> new Array{Elements: concat($es)}\n"
    "def elements = first:value rest:(-ws -\",\" -ws v:value)* -> concat(list($first), map($rest, (r) => $r.v))\n"
    "def string = \"\\\"\" s:chars \"\\\"\" -> $s\n"
    "def chars: String = ((?^\"\\\\) / \"\\\\\" .)*\n"
    "def number: Number = \"-\"? (?0-9)+ (\".\" (?0-9)+)?\n"
    "def literal: Literal = \"true\" / \"false\" / \"null\"\n"
    "def ws = (? \\t\\r\\n)*\n";

static void test_valid_grammars(void)
{
    EXPECT_VALID(calculator);
    EXPECT_VALID(json);
    EXPECT_TYPECHECK_CLEAN(calculator);
    EXPECT_TYPECHECK_CLEAN(json);
    /* predicates and variables of the right kinds; lambdas reading captures */
    EXPECT_VALID("type Item struct { Text Match, Children []Item }\n"
                 "def main = [indent = 0] items:block $$ -> $items\n"
                 "def block = (i:item)+ -> map($1, (x) => $x.i)\n"
                 "def item: Item = s:@\" \"* [len($s) == indent] t:@(?a-z)+ \"\\n\" cs:children?\n"
                 "    -> new Item{Text: $t, Children: concat($cs)}\n"
                 "def children = &(s:@\" \"*) [len($s) > indent] [indent = len($s)] [ok = text($s) == \"\"] b:block -> $b\n");
}

/* Inference does not depend on the order of the rules. */
static void test_inference_order(void)
{
    const char *forward =
        "type T struct { L []Match, S Seq, O *Match }\n"
        "def main = x:a y:b z:c -> new T{L: $x, S: $y, O: $z}\n"
        "def a = \"x\"* / b2\n"
        "def b2 = \"(\" a2 \")\" -> $2\n"
        "def a2 = \"y\"* / b2\n"
        "def b = p:\"p\" q:b?\n"
        "def c = \"c\"?\n";
    const char *backward =
        "def c = \"c\"?\n"
        "def b = p:\"p\" q:b?\n"
        "def a2 = \"y\"* / b2\n"
        "def b2 = \"(\" a2 \")\" -> $2\n"
        "def a = \"x\"* / b2\n"
        "def main = x:a y:b z:c -> new T{L: $x, S: $y, O: $z}\n"
        "type T struct { L []Match, S Seq, O *Match }\n";
    EXPECT_VALID(forward);
    EXPECT_VALID(backward);
    /* types that keep growing are widened, and then accepted */
    EXPECT_VALID("type T struct { F Match }\n"
                 "def main = x:e -> new T{F: $x}\n"
                 "def e = pratt { operand \"1\" level { postfix \"!\" -> list($lhs) } }\n");
    EXPECT_VALID("type T struct { F Match }\n"
                 "def main = x:deep -> new T{F: $x}\n"
                 "def deep = \"(\" d:deep* \")\" / \"x\"\n");
    /* a Pratt rule without a declared type reads its own type through $lhs */
    EXPECT_CHECK("type T struct { F Match }\n"
                 "def main = x:e -> new T{F: $x}\n"
                 "def e = pratt { operand \"1\" level { infix left \"+\" -> $lhs } }\n",
                 "");
    EXPECT_CHECK("type T struct { F Match }\n"
                 "type W struct { X node }\n"
                 "def main = x:e -> new T{F: $x}\n"
                 "def e = pratt { operand \"1\" level { postfix \"!\" -> new W{X: $lhs} } }\n",
                 "3:25: cannot use Match | W as Match in field F of T");
}

/* Each rule of assignability (6.1) where it accepts. */
static void test_assignable(void)
{
    EXPECT_VALID("type Num terminal\n"
                 "type Add struct { L Num, R Num }\n"
                 "type E = Num | Add\n"
                 "type T struct { Same Num, Union E, Opt *Num, Node node, Term terminal, List []E, Seq Seq, L List, Err Num }\n"
                 "def main = n:num a:add o:num? s:seq ns:num* r:(num #recover(skip=\"x\"))\n"
                 "    -> list(new T{Same: $n, Union: $n, Opt: $n, Node: $a, Term: $n, List: $ns, Seq: $s, L: $ns, Err: $r},\n"
                 "            new T{Union: $a, Opt: $o, Node: $s, Term: $1, List: list($n, $a), L: $ns},\n"
                 "            new T{Opt: nil, Node: $ns, Term: $n, L: $0})\n"
                 "def add: Add = l:num \"+\" r:num -> new Add{L: $l, R: $r}\n"
                 "def seq = k:\"a\" \"b\"\n"
                 "def num: Num = (?0-9)+\n");
    /* a union value when every member fits; a union with an optional member */
    EXPECT_VALID("type A struct {}\n"
                 "type B struct {}\n"
                 "type T struct { F A | B | *Match, G node }\n"
                 "def main = x:(a / b) y:\"c\"? -> list(new T{F: $x, G: $x}, new T{F: $y}, new T{F: nil})\n"
                 "def a: A = \"a\" -> new A{}\n"
                 "def b: B = \"b\" -> new B{}\n");
    /* the same rules where they refuse */
    EXPECT_CHECK("type Num terminal\n"
                 "type T struct { Same Num, Node node, List []Num, Seq Seq }\n"
                 "def main = m:\"a\" n:num? s:\"x\" \"y\" l:\"l\"* -> new T{Same: $m, Node: $n, List: $m, Seq: $l}\n"
                 "def num: Num = (?0-9)+\n",
                 "3:51: cannot use Match as Num in field Same of T\n"
                 "3:61: cannot use *Num as node in field Node of T\n"
                 "3:71: cannot use Match as []Num in field List of T\n"
                 "3:81: cannot use []Match as Seq in field Seq of T");
}

/* Aliases: chains resolve in any order, `new` of an alias builds its struct,
 * a rule declared with an alias of a terminal type produces that type. */
static void test_aliases(void)
{
    EXPECT_VALID("type A = B\n"
                 "type B = C\n"
                 "type C = S\n"
                 "type S struct { F N }\n"
                 "type N = Num\n"
                 "type Num terminal\n"
                 "def main: A = n:num -> new A{F: $n}\n"
                 "def num: N = (?0-9)+ \"x\"?\n");
    EXPECT_CHECK("type A = B | Match\n"
                 "type B = []A\n"
                 "def main: A = \"a\"\n",
                 "2:12: type A refers to itself\n"
                 "1:10: type B refers to itself");
}

/* The errors of both classes, with the position of each. */
static void test_errors(void)
{
    EXPECT_CHECK("type Pair struct { Key Match, Value Num }\n"
                 "def main = x:\"a\" -> new Pair{Key: $y}\n"
                 "def other = q\n",
                 "1:37: undefined type Num\n"
                 "2:35: undefined capture $y\n"
                 "3:13: undefined rule q");
    EXPECT_CHECK("type Pair struct { Key Match }\n"
                 "def main = k:\"a\"* -> new Pair{Key: $k}\n"
                 "def num = n:\"1\" -> $2\n"
                 "def pr: Match = pratt { operand \"1\" level { prefix \"-\" } }\n",
                 "2:31: cannot use []Match as Match in field Key of Pair\n"
                 "3:20: $2 is out of range: the rule has 1 elements with a value\n"
                 "4:1: operators of pr without an action produce Operator, which is not assignable to Match");
    /* a lambda parameter shadows a capture; without the parameter, the capture is read */
    EXPECT_VALID("type T struct { F Match }\n"
                 "def main = x:\"a\"* xs:(y:\"b\")* -> map($xs, (x) => new T{F: $x.y})\n");
    EXPECT_CHECK("type T struct { F Match }\n"
                 "def main = x:\"a\"* xs:(y:\"b\")* -> map($xs, (z) => new T{F: $x.y})\n",
                 "2:59: []Match has no field y");
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("typecheck", NULL, NULL);
    if (!s) { CU_cleanup_registry(); return 1; }
    struct { const char *name; CU_TestFunc f; } tests[] = {
        { "valid grammars", test_valid_grammars },
        { "inference order", test_inference_order },
        { "assignability", test_assignable },
        { "aliases", test_aliases },
        { "errors", test_errors },
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        if (!CU_add_test(s, tests[i].name, tests[i].f)) { CU_cleanup_registry(); return 1; }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
