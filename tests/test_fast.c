/* Differential tests of the fast program against the reference program.
 *
 * A table of small grammars, each written to exercise one optimization of the
 * fast program (jump tables, byte tests without choice entries, byte spans,
 * one-byte optionals, guarded loops, class loops, inlined rules, ...), is
 * compiled; the fast sections of each disassembly must contain the
 * instructions the grammar is meant to exercise. Every grammar is then parsed on
 * its listed inputs, on random strings over an alphabet taken from its literals
 * and classes, and on one-byte mutations of the listed inputs, in tree and
 * recognition mode, with each memo policy, once with the default options (the
 * fast program) and once with pego_options.reference: status, printed trees
 * (S-expression and JSON, which also shows the ranges) and error texts must be
 * identical, and a parse that matched must have been answered by the fast
 * program itself. The same comparison runs on a few hundred random grammars,
 * and, for every matching input, near the nesting limit, where the fast
 * program must not succeed when the reference program stops.
 *
 * With the default memo policy, every comparison also runs the profiled program
 * (the fast program with counters, docs/architecture.md): its result must be the
 * same, and its counts per rule (calls, evaluations, memo hits, matched, failed,
 * consumed) those that a collector counts on the reference program, which is
 * what `pego profile` prints. */
#include <CUnit/Basic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pego.h"
#include "../runtime/parser.h"    /* rt_parse_counts */
#include "fixtures.h"

typedef struct {
    const char *what;            /* the optimization the grammar exercises */
    const char *src;
    /* '|'-separated texts that the fast sections of the disassembly must contain
     * (instruction names, kept to the family: "SPAN" for every kind of span);
     * a leading '!' means must not contain (e.g. a call that is inlined); ""
     * checks nothing */
    const char *fast_code;
    const char *const *inputs;   /* NULL-terminated; some match, some do not */
} fast_case;

#define INPUTS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Calls compiled in whose body is one byte test (digit, d) or one byte span
 * (sp, alone at the start and the end): in "1,2," the last digit is called
 * and fails. */
#define COUNTED_CALLS_SRC "def main = -sp list (-sp -\";\" -sp list)* -sp\n" \
                          "def list = digit (-\",\" digit)* -\",\"?\n" \
                          "def digit = d\n" \
                          "def d = (?0-9)\n" \
                          "def sp = (? \\t)*\n"

/* Calls compiled in that PWORD (an identifier: a byte test, then a span)
 * and PINSPAN (white space with comments, whose SPANTEST exits to its POUT)
 * count in the profiled program. */
#define COUNTED_WORDS_SRC "def main = -ws (stmt -ws)*\n" \
                          "def stmt = name -ws -\"=\" -ws name -ws -\";\"\n" \
                          "def name = (?a-z_) (?a-z_0-9)*\n" \
                          "def ws = ((? \\t\\n) / comment)*\n" \
                          "def comment = \"#\" (?^\\n)*\n"

/* Alternatives that begin alike: the fast program runs the shared elements
 * once (test_shared_prefix reads the code), valued or not; not a shared
 * element with a value. */
#define SHARED_PREFIX_WHAT "alternatives that begin alike run their shared elements once"
#define SHARED_NOTHING_SRC "def main = (item -\";\")* $$\n" \
                           "def item = x:\"a\" \"b\" / x:\"a\" \"c\" / inner\n" \
                           "def inner = \"d\" -- \"e\" / \"d\" \"f\" / \"g\"\n"
#define SHARED_VALUE_SRC "def main = (item -\";\")* $$\n" \
                         "def item = @\"a\" \"b\" / @\"a\" \"c\"\n"
/* A rule whose body is a jump table of calls (value): its table is compiled
 * into its call sites, with the calls of rules compiled in (word, num, flag)
 * or made from there, and a call of value itself for list (test_dispatcher
 * reads the code). */
#define DISPATCHER_WHAT "a jump table of calls is compiled into its call sites"
#define DISPATCHER_SRC "def main = -sp (value -sp)*\n" \
                       "def value = list / word / num / flag\n" \
                       "def list = -\"[\" -sp (value -sp)* -\"]\"\n" \
                       "def word = @(?a-z)+\n" \
                       "def num = @(?0-9)+ (\".\" (?0-9)+)?\n" \
                       "def flag = \"!\" / \"?\"\n" \
                       "def sp = (? )*\n"

#define SHARED_PREFIX_SRC "def main = -sp (item -sp)*\n" \
                          "def item = -\"(\" -sp -\")\" / -\"(\" -sp item (-sp -\",\" -sp item)* -sp -\")\"\n" \
                          "         / -\"(\" -sp @name -sp -\")\"\n" \
                          "def name = (?a-z)+\n" \
                          "def sp = (? )*\n"

static const fast_case cases[] = {
    { "jump table: four alternatives with disjoint first bytes",
      "def main = item*\n"
      "def item = \"let\" -\" \" name / \"if\" -\" \" name / (?0-9)+ / \"(\" item* \")\"\n"
      "def name = @(?a-z)+\n",
      "DISPATCH",
      INPUTS("", "let x", "if y", "12", "(12)", "(let ab(if c)7)", "let x12((3))", "let", "let 1",
             "ift", "(", ")", "x", "if  y", "()()") },
    { "a repetition of a one-byte literal is a byte span",
      "def main = @\"a\"* -\"b\"+ @\"c\"+ $$\n",
      "BSPAN [a]|BSPAN1 [b]|BSPAN1 [c]|!REP",
      INPUTS("", "b", "ab", "aab", "abbc", "bc", "aaac", "a", "ba", "abcc", "c") },
    { "a repetition of a choice of one-byte literals and classes is a byte span",
      "def main = @(\"a\" / \"b\")* -(\",\" / (?0-9) / \" \")+ @(\"x\" / \"y\")+ $$\n",
      "BSPAN [a-b]|BSPAN1 [\\x20,0-9]|BSPAN1 [x-y]|!REP|!CHOICE",
      INPUTS("", ",", "ab,x", "ba1 2,y", "abab, 9xyx", "a", "ab", ",x", "a,b", "x", "ab,c", "a1y", "b ,xz") },
    { "jump table: alternatives that fail after consuming input",
      "def main = (s -\";\")*\n"
      "def s = \"x\" \"1\" \"2\" / \"y\" \"2\" / \"z\" / \"w\" s\n",
      "DISPATCH",
      INPUTS("", "x12;", "x1;", "y2;z;", "wwz;", "ww;", "w", "z;y2;x12;wz;", "x12", "y;", "q;") },
    { "jump table over a deferrable rule, again at a position (profiled: its skipped call is real there)",
      "def main = v \"!\" / v \"?\" / d\n"
      "def v = w / d / \"c\"\n"
      "def w = \"a\" e\n"
      "def d = \"b\" e\n"
      "def e = \"b\"\n",
      "DISPATCH",
      INPUTS("c?", "c!", "ab?", "ab!", "bb?", "bb", "b", "c", "x", "c?x", "a!", "") },
    { "jump table with a bottom alternative",
      "def main = (_|_ / \"a\" / \"b\" x:\"c\"? / (?d-f))*\n",
      "DISPATCH",
      INPUTS("", "a", "bc", "b", "abcdef", "g", "ab c", "cb") },
    { "two alternatives with disjoint first bytes: byte tests, no choice entries",
      "def main = (pair / word)* -\";\"?\n"
      "def pair = \"<\" @(?a-z)* \">\"\n"
      "def word = x:@(?a-z)+ -\" \"?\n",
      "BTEST|!CHOICE",
      INPUTS("", "<>", "<ab>", "ab cd", "ab<cd>ef;", "<ab", "ab;;", "a b <c> d", ";", "<a b>", ">") },
    { "overlapping first bytes: choice entries kept",
      "def main = (tok -\" \"?)*\n"
      "def tok = \"ab\" / \"a\" \"c\" / \"abc\" / \"b\" / (?a-b) \"d\"\n",
      "CHOICE",
      INPUTS("", "ab", "ac", "abc", "b", "ad bd", "ab ac b", "a", "ae", "abd", "bbb") },
    { "nullable alternatives",
      "def main = x (-\",\" x)* z\n"
      "def x = \"a\"+ \"b\"? / \"c\"? \"d\" / \"\" / \"e\"\n"
      "def z = (\"q\"? / \"r\")*\n",
      "BTEST",
      INPUTS("", "a", "ab", "d", "cd", ",", "a,,cd,ab", "e", "q", "r", "aq", "c", "a,e") },
    { "alternatives that fail after consuming input",
      "def main = (kw / num)* \"!\"?\n"
      "def kw = \"abc\" \"d\" / \"ab\" \"x\" / \"b\" \"cd\" / \"c\" \"de\"\n"
      "def num = (?0-9) (?0-9) \".\"\n",
      "CHOICE|BTEST",
      INPUTS("", "abcd", "abx", "abce", "bcd", "bce", "cde", "12.", "1a", "abcdbcd!", "12.cde!", "ab", "!",
             "cdx") },
    { "optional of one byte, valued",
      "def main = sign:\"-\"? n:@(?0-9)+ frac:(\".\" @(?0-9)+)? exp:((?eE) (?+\\-)? @(?0-9)+)?\n",
      "BTEST [\\x2d]|BTEST [+\\x2d]",
      INPUTS("1", "-1", "12.5", "-0.25e+10", "3E-2", "7e5", "-", "1.", "1e", "1e+", "--1", "+1", ".5") },
    { "optional of one byte, discarded",
      "def main = -\"-\"? -(?+\\-)? @(?0-9)+ (-\" \"? -\",\"? @(?a-z)+)*\n",
      "BTEST|!CHOICE",
      INPUTS("1", "-+1", "--2", "+3", "1 a", "1,b", "1 ,c d", "1  a", "a", "-", "12ab,cd ef") },
    { "loops with guards: *, + and {2,3} of rule calls",
      "def main = a* b+ c{2,3} -\";\" d{0,2}\n"
      "def a = \"a\" n\n"
      "def b = \"b\" n?\n"
      "def c = \"c\" / \"C\" n\n"
      "def d = \"d\"+\n"
      "def n = @(?0-9)+\n",
      "ITEREXIT",
      INPUTS("bcc;", "a1bcc;", "a1a22b3bC4c;", "bccc;", "bcccc;", "bcc;dd", "bcc;d", "cc;", "b c;", "bc;",
             "bC1C2;ddd", "a1", "") },
    { "(A / C)* with a negated class: a string with escapes, as in json.pego",
      "def main = string (-\",\" string)*\n"
      "def string = @(\"\\\"\" (escape / (?^\"\\\\))* \"\\\"\")\n"
      "def escape = \"\\\\\" ((?\"\\\\/bfnrt) / \"u\" (?0-9a-fA-F){4})\n",
      "SPAN|!escape (value-free)",
      INPUTS("\"\"", "\"abc\"", "\"a\\nb\"", "\"\\u00e9\"", "\"\\u00g9\"", "\"\\q\"", "\"a\",\"b\"", "\"abc",
             "\"\\\"\"", "\"\\\\\"", "\"caf\xc3\xa9\"", "\"\xff\"", "\"a\\", "\",\"") },
    { "(A / B / C)* with a negated class and two other alternatives",
      "def main = (-\"[\" @((\"<\" (?a-z)+ \">\" / \"&\" (?a-z)+ \";\" / (?^]<&))*) -\"]\")*\n",
      "SPAN|CHOICE",
      INPUTS("", "[]", "[abc]", "[a<b>c]", "[&amp;]", "[&amp]", "[<b]", "[x][y&z;w]", "[\xc3\xa9<a>\xff]",
             "[", "]", "[<>]", "[a&;]") },
    { "(C / A)*: the class first",
      "def main = @((?a-z) / \"\\\\\" . / \"%\" (?0-9) (?0-9))* (-\"|\" main)?\n",
      "SPAN",
      INPUTS("", "abc", "a\\bc", "a\\", "%12", "%1", "ab%99cd|x", "|", "a|b|c", "\\\xc3\xa9", "\\\xff",
             "%1a") },
    { "class spans over UTF-8, invalid and truncated bytes",
      "def main = @(?a-z)* -(?^ \\n)* (-\" \" @(?^ )+)* -\"\\n\"?\n",
      "SPAN",
      INPUTS("", "abc", "caf\xc3\xa9", "ab\xff" "cd", "\x80", "a \xc3\xa9t\xc3\xa9", "a \xc3", "x\n",
             "a  b", "\xe2\x82\xac \xe2\x82\xac\n", " ", "a\n\n") },
    { "classes with non-ASCII ranges",
      "def main = w:@(?a-z\\u{e9})+ c:(?a-z\\u{e9})? rest:(-\" \" @(?\\u{3b1}-\\u{3c9}\\u{e9})+ / -\",\" @(?^\\u{e9},)*)*\n",
      "SPAN (?|\\x80-\\xff]",
      INPUTS("caf\xc3\xa9", "\xc3\xa9" "a", "a \xce\xb1\xce\xb2", "a,xyz", "a,\xc3\xa9", "a,,b,", "a \xc3\xa9\xcf\x89",
             "a \xcf\x8a", "a,\xff", "\xff", "a \xc3", "A", "a ") },
    { "literals with U+FFFD",
      "def main = (\"\\u{FFFD}\" / \"\\u{e9}\" / \"a\\u{FFFD}b\" / \"x\")* -\"\\u{FFFD}\\u{FFFD}\"?\n",
      "CHOICE",
      INPUTS("", "\xff", "\xef\xbf\xbd", "a\xff" "b", "a\x80" "b", "a\xef\xbf\xbd" "b", "\xc3", "\xc3\xa9",
             "\xc3\xa9\xff", "x\xff\xff", "ab", "a", "\xc3\xa9x\xc3") },
    { "cut in the only other alternative of a value-free (A / C)* loop",
      "def main = @((\"a\" -- \"b\" / (?x-z))*) \"a\" \"c\" / \"a\" \"c\" \"d\"?\n",
      "REP|CUT|!SPANTEST",
      INPUTS("ac", "abac", "xac", "xyabzac", "acd", "ab", "abx", "a", "", "abab", "ad") },
    { "cut in one of two other alternatives of a value-free (A / B / C)* loop",
      "def main = @((\"a\" -- \"b\" / \"q\" \"r\" / (?x-z))*) \"a\" \"c\" / \"a\" \"c\" \"d\"?\n",
      "REP|CUT|!SPANTEST",
      INPUTS("ac", "abac", "qrxac", "xyabzac", "acd", "ab", "qac", "a", "", "abqr", "ad") },
    { "(A / C)+ and (A / C){0,3}: loops that are not class loops",
      "def main = @((\"\\\\\" . / (?^\\\\|))+) -\"|\" @((\"\\\\\" . / (?^\\\\|)){0,3})\n",
      "REP",
      INPUTS("a|b", "\\|||", "ab|abc", "ab|abcd", "|a", "a|", "\\", "a\\\\b|\\\\", "\xc3\xa9|\xff") },
    { "bounded repetitions of classes",
      "def main = @(?a-z){2,3} -(?0-9){0,2} @(?^ ){1,} (-\" \" (?a-z){2})?\n",
      "SPAN",
      INPUTS("ab!", "abc1!", "abcd", "ab12x", "ab123x", "a!", "ab", "abx yz", "abx y", "ab\xc3\xa9 zz") },
    { "loops whose iterations are capture scopes",
      "def main = (k:@(?a-z)+ v:(-\"=\" @(?0-9)+)? -\",\"?)*\n",
      "+scope",
      INPUTS("", "a", "a=1", "a=1,b", "a,b=2,", "a=", "=1", "a=1b=2", "a,,b") },
    { "alternatives without values",
      "def main = (\"a\" / -\"b\" / \"c\" -\"d\" / -(\"e\" \"f\"))* \"z\"?\n",
      "NIL",
      INPUTS("", "a", "b", "cd", "ef", "abcdefz", "c", "e", "z", "zz", "bbz") },
    { "rules without a value, and nil slots",
      "def main = r s r (-\",\" r)*\n"
      "def r = -\"a\"\n"
      "def s = \"b\"?\n",
      "RULEEND",
      INPUTS("aa", "aba", "aba,a", "ab", "a", "abaa", "aa,", "") },
    { "rules whose value is a call's: no RULEEND, tail calls in valued code",
      "def main = item (-\",\" item)*\n"
      "def item = list / atom\n"
      "def list = -\"(\" item* -\")\" / -\"[\" (-\"x\" / item)? -\"]\"\n"
      "def atom = @(?a-z)+ / num\n"
      "def num = @(?0-9)+\n",
      "!RULEEND item|RULEEND atom|+tail",
      INPUTS("a", "a,(bc)", "(((a)))", "[x]", "[]", "[(1)]", "12,a", "()", "(", ")", "a,", "[xa]", "",
             "[[x]]") },
    { "left recursion with discards and captures",
      "def main = e (-\";\" e)*\n"
      "def e = l:e -\"+\" r:n / -e \"*\" n / \"-\"? n\n"
      "def n = @(?0-9)+\n",
      "CAPTURE|POP",
      INPUTS("1", "-1", "1+2", "1*2", "1+2*3;4", "-1+-2", "1+", "*1", "1;;2", "12+34*56") },
    { "jump tables on non-ASCII first bytes",
      "def main = (\"\\u{e9}\" / \"a\" / \"b\" / (?0-9))* (\"\\u{FFFD}\" / \"x\" / \"y\")*\n",
      "DISPATCH",
      INPUTS("", "\xc3\xa9", "ab\xc3\xa9" "1", "x", "\xff", "\xef\xbf\xbd", "\xc3\xa9\xff" "x", "\xc3", "\xc3\xbc",
             "a\x80y", "z") },
    { "#error inside alternatives and loops",
      "def main = (((\"a\" \"b\") #error(message=\"m1\")) / \"c\" / \"d\")* (\"e\" #error(message=\"m2\"))?\n",
      "DISPATCH",
      INPUTS("", "ab", "abcd", "a", "ac", "e", "abe", "ee", "x") },
    { "lookaheads around alternatives without choice entries",
      "def main = (&(\"ab\" / \"c\") (?a-c) / !(\"x\" \"y\" / \"z\") .)*\n",
      "LOOK|NLOOK",
      INPUTS("", "ab", "c", "a", "xa", "xy", "z", "abc", "b", "\xc3\xa9") },
    { "a cut before the first byte of an alternative or of an optional",
      "def main = (-- \"a\" / \"b\") (-- \"c\")? \"d\"? / \"x\" / -- \"y\" / \"z\"\n",
      "BTEST|CUT",
      INPUTS("a", "b", "ac", "ad", "acd", "x", "bd", "bcd", "y", "z", "") },
    { "value-free optional of a negated class on multi-byte characters",
      "def main = -(?^a)? \"\\u{FFFD}\"? @(-(?^x)? \"y\")*\n",
      "",
      INPUTS("", "b", "\xc3\xa9", "\xff", "\xc3\xa9\xff", "by", "\xc3\xa9y", "\xe2\x82\xacy", "\xf0\x9f\x98\x80",
             "a", "xy", "xyxy", "\xc3\xa9yy", "\xef\xbf\xbd\xef\xbf\xbd") },
    { "left recursion through a lookahead, with a nullable leader",
      "def r0 = r1\n"
      "def r1 = r0 / (&r1 !\"!\" .)* r0?\n"
      "def main = r0 \"!\"\n",
      "LOOK",
      INPUTS("a!", "ab!", "!", "a", "", "!!", "\xff!") },
    { "small call-free rules inlined at value-free call sites",
      "def main = -ws item (-ws -\",\" -ws item)* -ws -end\n"
      "def ws = ((? \\t) / \"\\n\" / \"#\" (?^\\n)*)*\n"
      "def item = @(?a-z)+ / -quoted\n"
      "def quoted = \"'\" (?^')* \"'\"\n"
      "def end = \".\"?\n",
      "!ws (value-free)|!end (value-free)|!quoted (value-free)",
      INPUTS("a", " a , b ", "a,b.", "a #c\n,b", "'x y'", "a,'b',c .", "", "a,", "a b", "#c\na", "'a", "a..") },
    { "captures",
      "def main = k:key -\"=\" v:(num / key / list) more:(-\";\" x:key y:(-\"=\" num)?)*\n"
      "def list = -\"[\" first:num? rest:(-\",\" n:num)* -\"]\"\n"
      "def key = @(?a-z)+\n"
      "def num = @(?0-9)+\n",
      "CAPTURE",
      INPUTS("a=1", "a=b", "a=[]", "a=[1,2]", "a=[,2]", "a=1;b", "a=1;b=2;c", "a=", "=1", "a=[1,]", "a=1;",
             "a=1;b=") },
    { "atomic tokens",
      "def main = tok (-\" \" tok)*\n"
      "def tok = @(\"0x\" (?0-9a-f)+ / (?1-9) (?0-9)* / \"0\") / @((?a-z) (?a-z0-9)*) / @(\"\\\"\" (?^\")* \"\\\"\")\n",
      "MATCH|SPAN",
      INPUTS("0", "0x1f", "12", "0x", "abc1", "\"a b\"", "1 a \"x\"", "01", "\"", "0 0x0 10", "x y", "") },
    { "discards",
      "def main = -\"(\" -ws x:@(?a-z)* -ws -\")\" -ws (-\"+\" -ws main)?\n"
      "def ws = \" \"*\n",
      "!ws (value-free)",
      INPUTS("()", "( a )", "(a)+(b)", "(a) + ( b ) + ()", "(a", "a", "(a)+", "( a b )", "") },
    { "lookaheads inside alternatives",
      "def main = (!\"ab\" \"a\" / &\"b\" (?a-z) / \"ab\" \"c\"? / !(?a-z) . / &(\"c\" \"d\") \"c\")*\n",
      "NLOOK|LOOK",
      INPUTS("", "a", "ab", "abc", "b", "cd", "c", "1", "aab", "ba", "\xc3\xa9", "abcd", "dc") },
    { "cut inside choices",
      "def main = stmt*\n"
      "def stmt = \"if\" -- \" \" cond / \"id\" \" \"? / \"i\" (?0-9) / \"x\" -- \"y\" / \"x\" \"z\"\n"
      "def cond = (?a-z)+ \";\"\n",
      "CUT",
      INPUTS("", "if a;", "id", "id i1", "i1", "xy", "xz", "ifa;", "if ;", "i", "if a;xyid ", "x") },
    { "cut inside loops and optionals",
      "def main = (\"x\" -- \"y\" / \"z\")* (\"q\" -- \"r\")? (\"s\" -- \"t\")* \"w\"?\n",
      "CUT",
      INPUTS("", "xy", "xyz", "x", "xz", "qr", "q", "st", "stst", "sts", "w", "xyqrstw", "zw", "qw") },
    { "left recursion, direct",
      "def main = e\n"
      "def e = e \"+\" n / e \"-\" n / n\n"
      "def n = @(?0-9)+ / \"(\" e \")\"\n",
      "CALLG",
      INPUTS("1", "1+2", "1-2+3", "(1+2)-3", "1+", "+1", "((1))", "(1", "1+(2-(3))", "12-34", "") },
    { "left recursion, indirect (fixtures/arith_indirect.pego)",
      "def main   = expr\n"
      "def expr   = add / term\n"
      "def add    = expr @(?+\\-) term\n"
      "def term   = mul / factor\n"
      "def mul    = term @(?*/) factor\n"
      "def factor = num / -\"(\" expr -\")\"\n"
      "def num    = @(?0-9)+\n",
      "CALLG",
      INPUTS("1", "1-2+3", "1*2+3", "1+2*3", "(1+2)*3", "1/(2-3)", "1+", "*", "1**2", "(1", "") },
    { "left recursion with its value discarded",
      "def main = -l \"!\"?\n"
      "def l = l \"x\" / l \"y\" z / \"a\"\n"
      "def z = \"z\"?\n",
      "CALLG",
      INPUTS("a", "ax", "ayz", "axyxyz!", "a!", "x", "ay!", "az", "") },
    { "any character",
      "def main = (\"<\" (!\">\" .)* \">\" / \"\\\\\" . / !\"!\" .)* \"!\" .\n",
      "ANY",
      INPUTS("!a", "a!b", "<>!!", "<ab>!c", "<a!x", "\\!!", "\\<!\xff", "x<\xc3\xa9>\xff!\xc3\xa9", "<\xff!",
             "!", "a", "", "\\!", "!ab", ">!\x80") },
    { "anchors",
      "def main = line* $$\n"
      "def line = ^ \"#\" (?^\\n)* \"\\n\"? / (?a-z)+ $ \"\\n\"? / \" \" / \"\\r\" / ^^ \"!\"\n",
      "BOL|EOL",
      INPUTS("", "#x", "#x\nab\n", "ab", "ab cd", " #x", "!", "a!", "ab\r", "ab\r\n", "\n#", "a\n#b\n") },
    { "bounds with rule calls",
      "def main = d{2,3} (-\"-\" d{2})? (-\":\" h{1,4})*\n"
      "def d = (?0-9) / \"x\" d\n"
      "def h = (?0-9a-f)\n",
      "REP",
      INPUTS("12", "123", "1234", "1", "x12", "12-34", "12-3", "12:abcd", "12:abcde", "12:", "xx1x2", "") },
    { "keywords with common prefixes",
      "def main = kw (-\" \" kw)*\n"
      "def kw = \"int\" / \"in\" / \"if\" / \"else\" / \"e\" / \"x\"+\n",
      "CHOICE",
      INPUTS("int", "in", "if", "else", "e", "xxx", "in int", "els", "i", "int x e", "", "if  in") },
    { "memoized backtracking",
      "def main = s* $$\n"
      "def s = a \";\" / a \",\" / a \".\"\n"
      "def a = b \"x\" / b \"y\" / b\n"
      "def b = @(?a-z)+\n",
      "CALL",
      INPUTS("ab;cx,d.", "ab;c?", "", "a", "a;", "ax.", "ay,bx;", ";", "a;b") },
    { "JSON (fixtures/json.pego)",
      "def main    = -ws value -ws\n"
      "def value   = object / array / string / number / literal\n"
      "def object  = -\"{\" -ws -\"}\"\n"
      "            / -\"{\" -ws member (-ws -\",\" -ws member)* -ws -\"}\"\n"
      "def member  = string -ws -\":\" -ws value\n"
      "def array   = -\"[\" -ws -\"]\"\n"
      "            / -\"[\" -ws value (-ws -\",\" -ws value)* -ws -\"]\"\n"
      "def string  = @(\"\\\"\" (escape / (?^\"\\\\\\u{0}-\\u{1f}))* \"\\\"\")\n"
      "def escape  = \"\\\\\" ((?\"\\\\/bfnrt) / \"u\" (?0-9a-fA-F){4})\n"
      "def number  = @(\"-\"? (\"0\" / (?1-9) (?0-9)*) (\".\" (?0-9)+)? ((?eE) (?+\\-)? (?0-9)+)?)\n"
      "def literal = \"true\" / \"false\" / \"null\"\n"
      "def ws      = (? \\t\\n\\r)*\n",
      "DISPATCH|SPAN",
      INPUTS("1", "-0.5e+3", "\"a\\\"b\"", "[]", "[1, 2]", "{}", "{\"a\": [true, null]}", " {\"k\":{\"v\":false}} ",
             "[1,]", "{\"a\"}", "01", "tru", "\"\\u12\"", "[\"\xc3\xa9\"]", "") },
    { "#error labels",
      "def main = \"a\" ((\"b\" / \"c\") #error(message=\"expected b or c\")) \"d\"?\n",
      "BTEST",
      INPUTS("ab", "ac", "acd", "a", "ad", "b", "abdd", "") },
    { "CSV (fixtures/csv.pego)",
      "def main   = record*\n"
      "def record = !$$ field (-\",\" field)* -eol\n"
      "def field  = quoted / bare\n"
      "def quoted = @(\"\\\"\" ((?^\") / \"\\\"\\\"\")* \"\\\"\")\n"
      "def bare   = @(?^,\"\\r\\n)*\n"
      "def eol    = \"\\r\\n\" / \"\\n\" / $$\n",
      "SPAN",
      INPUTS("", "a,b\n", "a,b", "\"x,y\",z\r\n", "\"a\"\"b\"", "\"a", "a\"b", "\n\n", ",", "a,\"\"\n1,2\r\n",
             "\r") },
    { "non-ASCII literals sharing their first byte",
      "def main = (\"\\u{e9}\" / \"\\u{fc}\" / \"a\" / \"\\u{20ac}\" / \"ab\")*\n",
      "CHOICE",
      INPUTS("", "\xc3\xa9", "\xc3\xbc", "a\xe2\x82\xac", "ab", "\xc3", "\xc3\xa9\xc3\xbc" "ab", "\xe2\x82", "b") },
    { "a call chain that a byte test skips",
      "def main = a / \"x\"\n"
      "def a = b\n"
      "def b = \"(\" main \")\"\n",
      "BTEST",
      INPUTS("x", "(x)", "((x))", "(((x)))", "(x", "()", "") },
    { "dispatch behind calls on characters of two bytes: the byte picks, the character decides",
      "def main = (e / f / g / -\" \")* @(?^!)*\n"
      "def e = x \"1\"\n"
      "def x = \"\xc3\xa9\"\n"
      "def f = y \"2\"\n"
      "def y = \"\xd0\xb6\"\n"
      "def g = z \"3\"\n"
      "def z = (?a-c)\n",
      "DISPATCH",
      INPUTS("", "\xc3\xa9" "1", "\xc3\xa8" "1", "\xd0\xb6" "2", "\xd0\xb7" "2", "a3", "\xce\xb2" "3", "\xc3\xa9" "1 \xd0\xb6" "2 b3",
             "\xc3\xa9" "2", "\xc3\xa9", "\xc3", "\xff", "\xc3\xa8", "d3", "\xce\xb6" "3\xc3\xa9" "1", "!",
             "\xc3\xa8!") },
    { "dispatch behind calls on characters that share their first byte",
      "def main = (e / f / g)* -\";\"\n"
      "def e = x \"1\"\n"
      "def x = \"\xc3\xa9\"\n"
      "def f = y \"2\"\n"
      "def y = \"\xc3\xa8\"\n"
      "def g = z\n"
      "def z = (?^;a-z)\n",
      "CHOICE",
      INPUTS(";", "\xc3\xa9" "1;", "\xc3\xa8" "2;", "\xc3\xa8" "1;", "\xc3\xa9" "2;", "\xc3\xaa;", "a;", "\xff;",
             "\xc3\xa9;", "\xc3;", "\xc3\xa9" "1\xc3\xa8" "2\xc3\xa8\xc3\xa9;", "") },
    { "empty iterations and zero-width elements",
      "def main = (\"a\"? \"b\"?)* \"c\" (_ / \"d\")* (\"\"*)* \"e\"{0,0}\n",
      "LIST",
      INPUTS("c", "abc", "ababbc", "cd", "c", "ac", "bbc", "d", "ce", "") },
    { "a Pratt expression: operands, prefix, postfix, infix left, right and none, a skip, cuts",
      "def main = e -\" \"* $$\n"
      "def e = pratt {\n"
      "    skip \" \"*\n"
      "    operand word\n"
      "    operand @(?0-9)+\n"
      "    operand -\"(\" e -\" \"* -\")\"\n"
      "    operand \"#\" ^ @(?a-z)+\n"
      "    level { infix none \"<\" infix none \"==\" }\n"
      "    level { infix left \"+\" / \"-\" }\n"
      "    level { infix left \"*\" }\n"
      "    level { prefix \"-\" postfix \"!\" }\n"
      "    level { infix right \"^\" }\n"
      "}\n"
      "def word = @(?x-z)+\n",
      "PSTART|PRATT|SUBRET",
      INPUTS("1", "1+2*3", "x + yz * 2", "-x^y!", "x<", "(x)==z", "1 + 2 * 3 ^ 2 ^ 2 - -4!", "(1 + 2) ^ 2 == 9", "1 < 2 < 3", "1 <", "-(-1)!!",
             "#ab + #c", "#1", "#", "2^^3", "((1)", "1 2", "", "-", "1+", "1*-2^3!") },
    { "alternatives that begin alike, p a / p b: p (a / b), unless a cut is in them",
      "def main = (s -\";\" / t -\".\")* $$\n"
      "def s = \"a\" \"b\" -- \"c\" / \"a\" \"d\" / \"z\" / \"a\" \"bq\"\n"
      "def t = -\"{\" w -\"}\" / -\"{\" w (?0-9)+ w -\"}\" / -\"{\" \"!\"\n"
      "def w = \" \"*\n",
      "",
      INPUTS("", "abc;", "ad;", "z;", "abq;", "abd;", "ab;", "a;", "{}.", "{ 12 }.", "{!.", "{ !.", "{ 1.", "{.",
             "abc;{}.{1}.") },
    { "calls whose body is one byte test or span, matched by PBYTE and PSPAN in the profiled program",
      COUNTED_CALLS_SRC,
      "",
      INPUTS("1", "1,2", "1,2,", " 1 ; 2,3 ", "1;2,", "1,2,;3", "1,x", ",", "", "1;;2", "12", " ", "1 ,2") },
    { "identifiers and white space with comments, matched by PWORD and PINSPAN in the profiled program",
      COUNTED_WORDS_SRC,
      "",
      INPUTS("", "a=b;", " a = b ; ", "a=b;#c\nx=y;", "#only", "# one\n# two\n", "a # c\n = b;", "a=1;", "1",
             "a=b", "ab_1=c2;  # end", "a=b;#\n#\n", "a\n=\n\tb;", "a=b;;", "_=_;", "a=b; #x\n c=d ;#y") },
    { "chains of rules each of whose bodies calls the next: one frame in the profiled program",
      "def main = list $$\n"
      "def list = (item -\",\")*\n"
      "def item = a / \"x\" p\n"
      "def a = b\n"
      "def b = c\n"
      "def c = @(?0-9)+ / -\"(\" list -\")\"\n"
      "def p = q\n"
      "def q = @(?a-z)+\n",
      "+tail",
      INPUTS("", "1,", "1,xab,", "(1,),", "((1,xy,),),2,", "(((3,),),),", "x(,", "1", "x1,", "(1,x)",
             "((((((((1,),),),),),),),),", "xq,(((4,),),)") },
    { "Pratt: operator parts that are literals, bare or under a discard, a capture or @",
      "def main = e $$\n"
      "def e = pratt {\n"
      "    skip \" \"*\n"
      "    operand @(?0-9)+\n"
      "    level { infix none \"<=\" / \"<\" }\n"
      "    level { infix left -\"+\" infix left @\"-\" }\n"
      "    level { infix left o:(\"*\" / \"/\") infix left \"%\" / \"//\" }\n"
      "    level { prefix -\"~\" prefix \"!\" postfix \"?\" / \"??\" }\n"
      "    level { infix right \"^^\" / \"^\" }\n"
      "}\n",
      "PSTART|PRATT",
      INPUTS("1", "1+2-3", "1 * 2 / 3 % 4 // 5", "~1 + !2??", "1 ^^ 2 ^ 3", "1 <= 2", "1 < 2", "1 <= 2 < 3",
             "!~1?", "1 ^", "1 +", "", "1 // 2 * 3", "1^^^2", "1??2") },
    { "Pratt: operator parts that call rules, which a scan handed to the parse below would call again",
      "def main = e -\" \"* $$\n"
      "def e = pratt {\n"
      "    skip \" \"*\n"
      "    operand @(?0-9)+\n"
      "    level { infix left plus }\n"
      "    level { infix left \"*\" / times }\n"
      "    level { prefix minus postfix \"!\" }\n"
      "}\n"
      "def plus = \"+\" / \"-\" !\"-\"\n"
      "def times = \"x\"\n"
      "def minus = \"~\"\n",
      "PSTART|PRATT",
      INPUTS("1", "1+2", "1*2+3", "1 * 2 - 3 x 4", "~1!+2*~3", "1--2", "1 x 2 x 3 + 4", "1+", "1*", "~", "",
             "1 * 2 * 3 + 4 - 5 x 6!") },
    { "Pratt: calls of a level, a rule calling the expression, an operator's action",
      "def main = (s -\";\")* $$\n"
      "def s = -\"=\" e(mul) / e\n"
      "def e = pratt {\n"
      "    operand n:@(?0-9)+ -> $n\n"
      "    operand -\"[\" s -\"]\"\n"
      "    level add { infix left \"+\" }\n"
      "    level mul { infix left \"*\" -> $lhs }\n"
      "    level { postfix \"?\" }\n"
      "}\n",
      "PSTART|PRATT",
      INPUTS("", "1;", "1+2;", "=1*2;", "=1+2;", "[=1*2]+3;", "1?*2?;", "=[1+2]*3?;", "1;=;", "[1;", "1+;") },
    { "Pratt: the machine chooses no line at the byte after a skip: the probe's reach holds it",
      "def main = r0\n"
      "def r0 = . .{2,3} \"x\" / . \"y\" r0* / r1\n"
      "def r1 = pratt {\n"
      "    skip \" \"*\n"
      "    operand \"b\"\n"
      "    level { prefix \"a\" }\n"
      "}\n",
      "PSTART|PRATT",
      INPUTS(" ya ", " y a ", " ya", "yy a b", " y ab", "  a ", " yab") },
    { "a jump table's alternative that fails past its first byte: the later ones' calls count",
      "def main = (x / v \"!\" / v / (?a-z0-9.!))* $$\n"
      "def x = d \"!\"\n"
      "def v = r1 / n / q / \"x\" s / d / (t)* t\n"
      "def r1 = \"ab\" r1? \"!\"\n"
      "def n = (?0-9) \".\" (?0-9)\n"
      "def q = \"c\" r1\n"
      "def s = \"y\"\n"
      "def d = \"e\" f\n"
      "def f = \"f\"\n"
      "def t = \"z\"\n",
      "DISPATCH",
      INPUTS("a.", "ab!", "abab!!", "1.2", "1.", "1x", "c", "cab!", "cq", "x", "xy", "xq", "zz", "z", "q", "eg",
             "ef", "ef!", "efz", "eef", "a.1.2xyab!", "1.1.", "cabab!!x", "#", "a#", "ab!#") },
    { "left recursion reached from a value-free body: the cycle grows in the variant of its other calls",
      "def main = r0\n"
      "def r0 = r2 / (?^a)*\n"
      "def r1 = r2 (?c)\n"
      "def r2 = . r0 . / @(\"c\" r1 / r0) r2 / r0 \"b\"\n",
      "",
      INPUTS("ac", "a", "acb", "c", "ca", "", "acab", "aca", "abc", "aac", "cc", "acac", "acacb") },
    { "the deciding run makes the calls that reach a left-recursive cycle: a probe would grow it anew",
      "def main = r0\n"
      "def r0 = &r2 / !. / (?b)\n"
      "def r1 = (?}) / r2 / . r1\n"
      "def r2 = . (?b) / r1* . r0 / r2\n",
      "",
      INPUTS("bxa", "b a", "b", "", "bb", "xb", "bxb", "}", "b}a", "bba") },
    { "left recursion through a lookahead: no byte test skips a call that leaves seeds for later calls",
      "def main = r0\n"
      "def r0 = !r1 \"c\" / .? r0*\n"
      "def r1 = (?c) !(r1 r1) / r0 r1?\n",
      "NLOOK",
      INPUTS("c\xff", "c", "", "cc", "\xff", "cxc", "ccc\xff", "xc", "c\xff" "c") },
    { "#recover: the fast program runs the skip, and gives up a parse that recovers",
      "def main = item* $$\n"
      "def item = (@(?a-z)+ \";\") #recover(skip=(?^;)* \";\")\n",
      "RECOVER|SKIPEND",
      INPUTS("", "ab;", "ab;cd;", "ab;1;cd;", "1;", ";", "ab", "ab;;", "ab;1", "x;y;z;") },
    { "#recover in a choice, a lookahead and a repetition, with #error",
      "def main = (st / -\"!\")* $$\n"
      "def st = (&\"k\" \"k\" v #error(message=\"a value\") \".\") #recover(skip=(?^.!)+ \".\")\n"
      "def v = (?0-9)+ / \"(\" v \")\"\n",
      "RECOVER",
      INPUTS("", "k1.", "k1.!k2.", "kx.", "k(1).", "k(1.", "x.", "!!", "k1!", "k.", "kk1.", "k1.x.k2.") },
    { "#recover before an alternative that matches where it recovers: the recovery stands, as in the reference program",
      "def main = (x / \"ab\")* $$\n"
      "def x = (\"a\" \"c\") #recover(skip=\"a\")\n",
      "RECOVER",
      INPUTS("", "ac", "ab", "aca", "acab", "abac", "b", "a") },
    { "#recover: a recovery that a later failure undoes, in a plain and in a memoized call, leaves the match to the fast program",
      "def main = (x \"!\" / x \"?\" / w)* $$\n"
      "def x = (\"a\" \"b\") #recover(skip=(?a-z)+)\n"
      "def w = (?a-z)+ \";\"\n",
      "RECOVER|SKIPEND",
      INPUTS("", "ab!", "ac!", "ac?", "ac;", "ab?ac;", "acd;ab!", "ab!ac;ab?", "ac;ac?", "a;", "ac") },
    { DISPATCHER_WHAT, DISPATCHER_SRC, "",
      INPUTS("", "a", "[]", "[a 1 !]", "[[[[[x]]]]]", "[[a] [1.5 ?] []] b", "[", "]", "[a", "1.", "[[[[[x]]]]",
             "a[b]c", "[ [ ! ] ]", "[a,b]", "[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]") },
    { "a jump table whose alternative calls a nest compiled in: the table's level is kept in reserve too",
      "def main = -sp (value -sp)*\n"
      "def value = list / group / num\n"
      "def list = -\"[\" -sp (value -sp)* -\"]\"\n"
      "def group = -\"(\" inner -\")\"\n"
      "def inner = mid\n"
      "def mid = leaf\n"
      "def leaf = @(?a-z)+\n"
      "def num = @(?0-9)+\n"
      "def sp = (? )*\n",
      "",
      INPUTS("", "(a)", "[(a) 1]", "[[[(ab)]]]", "[[[[[[[[(x)]]]]]]]] 7", "(", "(1)", "[(a)", "[[[[(a)]]]", "()") },
    { "alternatives that begin alike with a value share it in value-free code only", SHARED_VALUE_SRC, "",
      INPUTS("", "ab;", "ac;", "ab;ac;", "a;", "ad;", "ab", "b;", "acab;") },
    { SHARED_PREFIX_WHAT, SHARED_PREFIX_SRC, "",
      INPUTS("", "()", "( )", "(a)", "((),(a))", "( ( ) , ( xy ) )", "(", ")", "(a", "((a)", "(,)", "(ab cd)",
             "(a) (b)", "(()") },
    { "value-free alternatives that share a call, a repetition and an optional",
      "def main = (-pair -\";\")* $$\n"
      "def pair = key -\"=\" \" \"* \"+\"? @(?0-9)+ / key -\"=\" \" \"* \"+\"? -\"\\\"\" @(?a-z)* -\"\\\"\"\n"
      "         / key -\"=\" \" \"* -\"[\" -\"]\"\n"
      "def key = (?a-z)+ (\".\" (?a-z)+)*\n",
      "",
      INPUTS("", "a=1;", "a.b= +12;", "a=\"xy\";", "a=  \"\";b=3;", "a=[];", "a=;", "a=\"x;", "a.=1;", "=1;",
             "a=+[];", "a=1", "a.b.c=[];a=+\"q\";") },
    { "alternatives that begin with a capture or hold a cut share nothing", SHARED_NOTHING_SRC, "",
      INPUTS("", "ab;", "ac;", "de;", "df;", "g;", "ab;ac;de;g;", "ad;", "d;", "a;", "df") },
};

#define NCASES (sizeof cases / sizeof cases[0])

/* ---- deterministic pseudo-random numbers (splitmix64) ---- */

static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static size_t below(uint64_t *state, size_t n) { return (size_t)(next_random(state) % n); }

/* ---- alphabets ---- */

/* A symbol is a short byte string that random inputs are made of: a character
 * of the grammar, a whole literal, or one of the extra bytes. */
typedef struct { unsigned char b[12]; size_t n; } symbol;
typedef struct { symbol s[160]; int n; } alphabet;

static void add_symbol(alphabet *a, const unsigned char *b, size_t n)
{
    if (n == 0 || n > sizeof a->s[0].b || a->n == (int)(sizeof a->s / sizeof a->s[0])) return;
    for (int i = 0; i < a->n; i++)
        if (a->s[i].n == n && memcmp(a->s[i].b, b, n) == 0) return;
    memcpy(a->s[a->n].b, b, n);
    a->s[a->n++].n = n;
}

static size_t utf8_encode(uint32_t c, unsigned char *out)
{
    if (c < 0x80) { out[0] = (unsigned char)c; return 1; }
    if (c < 0x800) { out[0] = (unsigned char)(0xc0 | c >> 6); out[1] = (unsigned char)(0x80 | (c & 0x3f)); return 2; }
    if (c < 0x10000) {
        out[0] = (unsigned char)(0xe0 | c >> 12);
        out[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
        out[2] = (unsigned char)(0x80 | (c & 0x3f));
        return 3;
    }
    out[0] = (unsigned char)(0xf0 | c >> 18);
    out[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3f));
    out[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3f));
    out[3] = (unsigned char)(0x80 | (c & 0x3f));
    return 4;
}

/* Reads one character of a literal or class at s[*i] (an escape, or one UTF-8
 * sequence as written) into out; returns its length in bytes and its code
 * point in *cp (the lead byte for non-ASCII text written as is). */
static size_t grammar_char(const char *s, size_t *i, unsigned char out[4], uint32_t *cp)
{
    unsigned char c = (unsigned char)s[*i];
    if (c == '\\' && s[*i + 1]) {
        char e = s[*i + 1];
        *i += 2;
        switch (e) {
        case 'n': *cp = '\n'; break;
        case 'r': *cp = '\r'; break;
        case 't': *cp = '\t'; break;
        case 'u':
            if (s[*i] == '{') {
                char *end;
                *cp = (uint32_t)strtoul(s + *i + 1, &end, 16);
                *i = (size_t)(end - s) + (*end == '}');
                return utf8_encode(*cp, out);
            }
            *cp = 'u';
            break;
        default: *cp = (unsigned char)e; break;
        }
        out[0] = (unsigned char)*cp;
        return 1;
    }
    size_t n = c < 0x80 ? 1 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    for (size_t k = 0; k < n; k++) out[k] = (unsigned char)s[*i + k];
    *i += n;
    *cp = c;
    return n;
}

/* The characters of the grammar's literals and classes (for a range of ASCII
 * characters, its ends and its middle), every literal of more than one
 * character as a whole, and extras: space, LF, é, a lone lead byte, 0xFF,
 * 0x80, U+FFFD, a letter no grammar names, and sequences that are not UTF-8
 * (overlong, a surrogate, above U+10FFFF, truncated) next to a 4-byte one. */
static void derive_alphabet(const char *src, alphabet *a)
{
    a->n = 0;
    size_t i = 0;
    while (src[i]) {
        if (src[i] == '/' && src[i + 1] == '/') {
            while (src[i] && src[i] != '\n') i++;
        } else if (src[i] == '"') {
            unsigned char lit[64], ch[4];
            size_t litn = 0, nchars = 0;
            uint32_t cp;
            i++;
            while (src[i] && src[i] != '"') {
                size_t n = grammar_char(src, &i, ch, &cp);
                add_symbol(a, ch, n);
                if (litn + n <= sizeof lit) { memcpy(lit + litn, ch, n); litn += n; }
                nchars++;
            }
            if (src[i]) i++;
            if (nchars > 1) add_symbol(a, lit, litn);
        } else if (src[i] == '(' && src[i + 1] == '?') {
            unsigned char ch[4], hi[4];
            uint32_t lo_cp, hi_cp;
            i += 2;
            if (src[i] == '^') i++;
            while (src[i] && src[i] != ')') {
                size_t n = grammar_char(src, &i, ch, &lo_cp);
                add_symbol(a, ch, n);
                if (src[i] == '-' && src[i + 1] && src[i + 1] != ')') {
                    i++;
                    size_t m = grammar_char(src, &i, hi, &hi_cp);
                    add_symbol(a, hi, m);
                    if (n == 1 && m == 1) {
                        unsigned char mid = (unsigned char)((lo_cp + hi_cp) / 2);
                        add_symbol(a, &mid, 1);
                    }
                }
            }
            if (src[i]) i++;
        } else {
            i++;
        }
    }
    static const char *const extras[] = {
        " ", "\n", "\xc3\xa9", "\xc3", "\xff", "\x80", "\xef\xbf\xbd", "Q",
        "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "\xf0\x9f\x98\x80",
    };
    for (size_t k = 0; k < sizeof extras / sizeof extras[0]; k++)
        add_symbol(a, (const unsigned char *)extras[k], strlen(extras[k]));
}

/* ---- generated inputs ---- */

typedef struct {
    unsigned char *bytes;       /* all inputs, one after another */
    size_t len, cap;
    size_t *start;              /* input k is bytes[start[k] .. start[k + 1]) */
    size_t n, ncap;
} input_set;

static void input_begin(input_set *s)
{
    if (s->n + 2 > s->ncap) {
        s->ncap = s->ncap ? 2 * s->ncap : 256;
        s->start = realloc(s->start, s->ncap * sizeof *s->start);
    }
    if (s->n == 0) s->start[0] = 0;
}

static void input_add(input_set *s, const unsigned char *b, size_t n)
{
    input_begin(s);
    if (s->len + n > s->cap) {
        s->cap = 2 * (s->len + n) + 256;
        s->bytes = realloc(s->bytes, s->cap);
    }
    if (n) memcpy(s->bytes + s->len, b, n);
    s->len += n;
    s->start[++s->n] = s->len;
}

static const unsigned char *input_at(const input_set *s, size_t k, size_t *len)
{
    *len = s->start[k + 1] - s->start[k];
    return s->bytes + s->start[k];
}

static void input_free(input_set *s)
{
    free(s->bytes);
    free(s->start);
}

#define RANDOM_INPUTS   300
#define MUTATIONS_EACH  12
#define MAX_INPUT       256

/* Random strings of 0 to 12 symbols; then, for each listed input, every
 * one-byte deletion and random one-byte (or one-symbol) insertions and
 * replacements; then splices of two listed inputs. */
static void generate(const fast_case *c, size_t index, input_set *out)
{
    alphabet a;
    derive_alphabet(c->src, &a);
    /* a seed of its own for each grammar: adding a grammar changes no other's inputs */
    uint64_t rng = 0x5eed0f0fa57ull + 7919 * (uint64_t)index;
    unsigned char buf[MAX_INPUT * 2];
    for (int k = 0; k < RANDOM_INPUTS; k++) {
        size_t n = 0, count = below(&rng, 13);
        for (size_t j = 0; j < count; j++) {
            const symbol *sym = &a.s[below(&rng, (size_t)a.n)];
            memcpy(buf + n, sym->b, sym->n);
            n += sym->n;
        }
        input_add(out, buf, n);
    }
    size_t nlisted = 0;
    while (c->inputs[nlisted]) nlisted++;
    for (size_t k = 0; k < nlisted; k++) {
        const unsigned char *in = (const unsigned char *)c->inputs[k];
        size_t len = strlen(c->inputs[k]);
        if (len >= MAX_INPUT) continue;
        for (size_t at = 0; at < len; at++) {                /* deletions */
            memcpy(buf, in, at);
            memcpy(buf + at, in + at + 1, len - at - 1);
            input_add(out, buf, len - 1);
        }
        for (int m = 0; m < MUTATIONS_EACH; m++) {
            const symbol *sym = &a.s[below(&rng, (size_t)a.n)];
            size_t at = below(&rng, len + 1), symlen = m % 2 ? sym->n : 1;
            memcpy(buf, in, at);                             /* insertion */
            memcpy(buf + at, sym->b, symlen);
            memcpy(buf + at + symlen, in + at, len - at);
            input_add(out, buf, len + symlen);
            if (len == 0) continue;
            at = below(&rng, len);                           /* replacement */
            memcpy(buf, in, len);
            buf[at] = sym->b[below(&rng, sym->n)];
            input_add(out, buf, len);
        }
    }
    for (size_t k = 0; nlisted && k < 2 * nlisted; k++) {      /* splices */
        const char *x = c->inputs[below(&rng, nlisted)], *y = c->inputs[below(&rng, nlisted)];
        size_t xn = strlen(x), yn = strlen(y);
        if (xn >= MAX_INPUT || yn >= MAX_INPUT) continue;
        size_t cut_x = below(&rng, xn + 1), cut_y = below(&rng, yn + 1);
        memcpy(buf, x, cut_x);
        memcpy(buf + cut_x, y + cut_y, yn - cut_y);
        input_add(out, buf, cut_x + yn - cut_y);
    }
}

/* ---- comparing the two programs ---- */

typedef struct {
    pego_status status;
    uint32_t    fast;     /* stats: the fast program gave the result */
    size_t      recovered;   /* errors recovered by #recover */
    char       *text;     /* the S-expression and node count, or the error and its details */
    char       *json;     /* the JSON form, which also shows every node's range; "" on failure */
    int         pending;  /* the statistics needed a second parse (pego_result_stats) */
    int         gave_up;  /* the fast program's run gave the parse up at a recovery */
    int         decided;  /* a deciding run decided the syntax error (vm/decide.c) */
    int         claimed;  /* ... skipping iterations that the fast run claimed */
    pego_stats  stats;
} outcome;

static char *concat3(const char *a, const char *b, const char *c)
{
    size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
    char *s = malloc(na + nb + nc + 1);
    memcpy(s, a, na);
    memcpy(s + na, b, nb);
    memcpy(s + na + nb, c, nc + 1);
    return s;
}

static outcome run(pego_parser *p, const unsigned char *in, size_t len, const pego_options *o)
{
    const pego_result *r;
    outcome out;
    out.status = pego_parse(p, (const char *)in, len, o, &r);
    out.gave_up = p->fast_gave_up;
    out.decided = p->decided;
    out.claimed = p->decided && p->decider.claimed;
    out.pending = r->stats_pending;
    out.stats = *pego_result_stats(r);
    out.fast = out.stats.fast_program;
    out.recovered = pego_result_recovered_count(r);
    if (out.status == PEGO_OK) {
        char *sexpr = pego_result_print(r, PEGO_PRINT_SEXPR), *json = pego_result_print(r, PEGO_PRINT_JSON);
        char count[64];
        snprintf(count, sizeof count, " (%zu nodes, value %d)", pego_result_node_count(r),
                 pego_result_has_value(r));
        out.text = concat3(sexpr ? sexpr : "(no text)", count, "");
        out.json = concat3(json ? json : "(no text)", "", "");
        free(sexpr);
        free(json);
    } else {
        const char *e = pego_result_error(r);
        char detail[96];
        snprintf(detail, sizeof detail, " (offset %llu, %zu expected)",
                 (unsigned long long)pego_result_error_offset(r), pego_result_expected_count(r));
        out.text = concat3(e ? e : "(no error text)", detail, "");
        out.json = concat3("", "", "");
    }
    return out;
}

/* Writes bytes as a C string literal: non-printable bytes as \xHH. */
static void print_escaped(FILE *f, const unsigned char *b, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = b[i];
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c >= 0x20 && c < 0x7f) fputc(c, f);
        else fprintf(f, "\\x%02x", c);
    }
    fputc('"', f);
}

typedef struct {
    unsigned long comparisons;
    unsigned long differences;
    unsigned long matched;          /* comparisons where the input matched */
    unsigned long counted;          /* ... and whose counts were compared */
    int           shown;            /* differences printed in full, in this test */
    int           shown_case;       /* ... for the current grammar */
    /* a match may be the reference program's when the fast program gave it
     * up at a recovery it cannot go on past (docs/architecture.md, No
     * recovery: in a lookahead, a seed growing, a Pratt line, a counted run's
     * memoized call), which only the random grammars have: the listed ones
     * hold every recovery to the fast program */
    int           give_up_allowed;
    unsigned long given_up;         /* matches the reference program gave so, without errors recovered */
    unsigned long decided;          /* syntax errors a deciding run decided */
    unsigned long claimed;          /* ... skipping iterations the fast run claimed */
} tally;

/* Enough to see what goes wrong in a few grammars without drowning it. */
#define MAX_SHOWN       12
#define MAX_SHOWN_CASE  2

static void report(const fast_case *c, const unsigned char *in, size_t len, const pego_options *o,
                   const char *why, const outcome *fast, const outcome *ref, tally *t)
{
    if (t->shown >= MAX_SHOWN || t->shown_case >= MAX_SHOWN_CASE) return;
    t->shown++;
    t->shown_case++;
    static const char *const memo[] = { "default", "all", "none" };
    fprintf(stderr, "\n  DIFFERENCE (%s): %s\n  grammar:\n%s  input: ", why, c->what, c->src);
    print_escaped(stderr, in, len);
    fprintf(stderr, "\n  options: %s, memo %s, unit %s, max_depth %u\n", o->recognize ? "recognition" : "tree",
            memo[o->memo], o->unit == PEGO_UNIT_BYTES ? "bytes" : "code points", (unsigned)o->max_depth);
    fprintf(stderr, "  default:   status %d, fast_program %u: %s\n", fast->status, (unsigned)fast->fast, fast->text);
    fprintf(stderr, "  reference: status %d, fast_program %u: %s\n", ref->status, (unsigned)ref->fast, ref->text);
    if (strcmp(fast->text, ref->text) == 0 && strcmp(fast->json, ref->json) != 0)
        fprintf(stderr, "  default JSON:\n%s\n  reference JSON:\n%s\n", fast->json, ref->json);
}

/* Whether two parses' statistics agree, every counter but fast_program. */
static int same_stats(const pego_stats *a, const pego_stats *b)
{
    return a->calls == b->calls && a->evals == b->evals && a->memo_hits == b->memo_hits &&
           a->memo_stored == b->memo_stored && a->rules_memoized == b->rules_memoized;
}

/* The counts of the profiled program against a collector's on the reference
 * program; NULL when they agree, else what differs (in buf). A parse the fast
 * program matched must have been counted, unless at_limit (the profiled
 * program makes the calls it cannot count without making them, and may reach
 * the nesting limit where the fast program does not) or give_up_allowed and
 * the profiled program gave it up at a recovery (tally.give_up_allowed: it
 * makes calls the fast program skips, and recovers in them). */
static unsigned long counted_errors;   /* syntax errors whose counts were compared */

static const char *compare_counts(pego_parser *p, const unsigned char *in, size_t len, const pego_options *o,
                                  const outcome *fast, int at_limit, int give_up_allowed,
                                  unsigned long *counted_matches, char *buf, size_t size)
{
    const pego_grammar *g = p->g;
    int nrules = (int)pego_grammar_rule_count(g);
    pego_options counting = *o;
    counting.count_stats = 1;
    outcome counted = run(p, in, len, &counting);
    pego_stats counted_stats = p->res.stats;
    int counted_pending = p->res.stats_pending;     /* a second parse still to come */
    const char *why = NULL;
    if (counted.status != fast->status || strcmp(counted.text, fast->text) != 0 ||
        strcmp(counted.json, fast->json) != 0) {
        why = "the profiled program's result";
    } else if ((fast->status == PEGO_OK && fast->fast) || fast->status == PEGO_SYNTAX_ERROR) {
        /* a match of the fast program, or a syntax error: the profiled
         * program counted it, unless it gave up at a recovery or stopped at
         * the nesting limit */
        vm_count *mine = calloc((size_t)nrules + 1, sizeof *mine);
        const vm_count *folded = rt_parse_counts(p);     /* (the reference parse below reuses them) */
        int ok = folded != NULL;
        if (ok) memcpy(mine, folded, (size_t)nrules * sizeof *mine);
        pego_collector *c = pego_collector_new();
        pego_options ref = *o;
        ref.reference = 1;
        ref.unit = PEGO_UNIT_BYTES;     /* the profiled program counts consumed input in bytes */
        pego_parser_add_collector(p, c);
        const pego_result *res;
        pego_parse(p, (const char *)in, len, &ref, &res);
        pego_parser_remove_collector(p, c);
        if (!ok && fast->status == PEGO_OK && !at_limit && !(give_up_allowed && counted.gave_up))
            why = "a match the profiled program did not count";
        /* pego_result_stats of the counted parse: the reference program's, with no second parse */
        const pego_stats *want = pego_result_stats(res);
        if (ok && !why && (!same_stats(&counted_stats, want) || counted_pending)) {
            snprintf(buf, size, "statistics: counted %llu %llu %llu %llu %u, reference %llu %llu %llu %llu %u "
                     "(calls evals memo_hits memo_stored rules_memoized)",
                     (unsigned long long)counted_stats.calls, (unsigned long long)counted_stats.evals,
                     (unsigned long long)counted_stats.memo_hits, (unsigned long long)counted_stats.memo_stored,
                     counted_stats.rules_memoized, (unsigned long long)want->calls, (unsigned long long)want->evals,
                     (unsigned long long)want->memo_hits, (unsigned long long)want->memo_stored,
                     want->rules_memoized);
            why = buf;
        }
        if (!ok) nrules = 0;
        else if (fast->status == PEGO_OK) ++*counted_matches;
        else counted_errors++;
        for (int r = 0; r < nrules && !why; r++) {
            pego_collector_rule want = { 0 };
            pego_collector_find_rule(c, pego_grammar_rule_name(g, (size_t)r), &want);
            const vm_count *got = &mine[r];
            const char *field = got->calls != want.calls ? "calls" : got->evals != want.evals ? "evals"
                              : got->memo != want.memo ? "memo hits" : got->matched != want.matched ? "matched"
                              : got->failed != want.failed ? "failed" : got->consumed != want.consumed ? "consumed"
                              : NULL;
            if (field) {
                snprintf(buf, size, "counts of rule %s, %s: profiled %llu %llu %llu %llu %llu %llu, "
                         "collector %llu %llu %llu %llu %llu %llu (calls evals memo matched failed consumed)",
                         pego_grammar_rule_name(g, (size_t)r), field, (unsigned long long)got->calls,
                         (unsigned long long)got->evals, (unsigned long long)got->memo,
                         (unsigned long long)got->matched, (unsigned long long)got->failed,
                         (unsigned long long)got->consumed, (unsigned long long)want.calls,
                         (unsigned long long)want.evals, (unsigned long long)want.memo,
                         (unsigned long long)want.matched, (unsigned long long)want.failed,
                         (unsigned long long)want.consumed);
                why = buf;
            }
        }
        pego_collector_free(c);
        free(mine);
    }
    free(counted.text);
    free(counted.json);
    return why;
}

/* With another memo policy than the default, statistics asked for
 * (count_stats) are counted as the parse runs, with no second parse, and are
 * the reference program's (ref); NULL when so. */
static const char *compare_counted_stats(pego_parser *p, const unsigned char *in, size_t len,
                                         const pego_options *o, const outcome *ref)
{
    pego_options counting = *o;
    counting.count_stats = 1;
    outcome counted = run(p, in, len, &counting);
    const char *why = NULL;
    if (counted.status != ref->status || strcmp(counted.text, ref->text) != 0 || strcmp(counted.json, ref->json) != 0)
        why = "the counted parse's result";
    else if (counted.pending) why = "statistics counted by a second parse";
    else if (!same_stats(&counted.stats, &ref->stats)) why = "the counted parse's statistics";
    free(counted.text);
    free(counted.json);
    return why;
}

/* Parses with the default options and with .reference; returns 1 on a
 * difference. Unless at_limit, a match must come from the fast program (at the
 * nesting limit the fast program's reserved level can send a match to the
 * reference program). */
static int compare(pego_parser *p, const fast_case *c, const unsigned char *in, size_t len,
                   const pego_options *o, int at_limit, tally *t)
{
    pego_options ref_opt = *o;
    ref_opt.reference = 1;
    outcome fast = run(p, in, len, o), ref = run(p, in, len, &ref_opt);
    const char *why = NULL;
    if (fast.status != ref.status) why = "status";
    else if (strcmp(fast.text, ref.text) != 0 || strcmp(fast.json, ref.json) != 0) why = "result";
    else if (ref.fast) why = "the reference parse reports the fast program";
    /* a match must come from the fast program itself: falling back to the
     * reference program would hide the fast program's mistakes; only a match
     * with errors recovered by #recover is the reference program's (and, in
     * random grammars, one the fast program gave up at a recovery) */
    else if (fast.status == PEGO_OK && !fast.fast && !at_limit && !fast.recovered &&
             !(t->give_up_allowed && fast.gave_up))
        why = "a match not answered by the fast program";
    else if (fast.fast && fast.recovered) why = "recovered errors answered by the fast program";
    /* anything else is decided by the reference program */
    else if (fast.status != PEGO_OK && fast.fast) why = "a failure answered by the fast program";
    char counts[512];
    if (!why && o->memo == PEGO_MEMO_DEFAULT) {
        why = compare_counts(p, in, len, o, &fast, at_limit, t->give_up_allowed, &t->counted, counts, sizeof counts);
    } else if (!why) {
        why = compare_counted_stats(p, in, len, o, &ref);
    }
    t->comparisons++;
    if (fast.status == PEGO_OK) t->matched++;
    if (fast.decided) t->decided++;
    if (fast.claimed) t->claimed++;
    if (fast.status == PEGO_OK && !fast.fast && !at_limit && !fast.recovered && fast.gave_up) t->given_up++;
    if (why) {
        t->differences++;
        report(c, in, len, o, why, &fast, &ref, t);
    }
    free(fast.text);
    free(fast.json);
    free(ref.text);
    free(ref.json);
    return why != NULL;
}

/* Every mode and memo policy; the unit alternates with the input, so that both
 * units are covered without doubling the work. */
static void compare_all_modes(pego_parser *p, const fast_case *c, const unsigned char *in, size_t len,
                              size_t k, tally *t)
{
    static const pego_memo_policy policies[] = { PEGO_MEMO_DEFAULT, PEGO_MEMO_NONE, PEGO_MEMO_ALL };
    for (int rec = 0; rec < 2; rec++)
        for (int m = 0; m < 3; m++) {
            pego_options o = { .recognize = rec, .memo = policies[m],
                               .unit = k % 2 ? PEGO_UNIT_BYTES : PEGO_UNIT_CODEPOINTS };
            compare(p, c, in, len, &o, 0, t);
        }
}

static pego_grammar *compile_case(const fast_case *c)
{
    pego_diag *diag = NULL;
    pego_grammar *g = pego_compile(c->src, strlen(c->src), "t.pego", &diag);
    if (!g) {
        fprintf(stderr, "\n  %s: does not compile:\n%s\n", c->what, pego_diag_text(diag));
        pego_diag_free(diag);
    }
    return g;
}

static tally totals;

/* ---- the tests ---- */

/* The fast sections of the disassembly ("rule r, fast:" and "rule r, fast,
 * value-free:"), so that a grammar is checked to exercise what it is meant to. */
static char *fast_sections(const pego_grammar *g)
{
    char *all = pego_grammar_disassemble(g);
    if (!all) return NULL;
    size_t n = strlen(all), out = 0;
    char *sel = malloc(n + 1);
    int on = 0;
    for (char *line = all; *line;) {
        char *eol = strchr(line, '\n');
        size_t len = eol ? (size_t)(eol - line) + 1 : strlen(line);
        if (strncmp(line, "rule ", 5) == 0) {
            const char *mark = strstr(line, ", fast");
            on = mark && mark < line + len;
        } else if (len <= 1) {
            on = 0;
        }
        if (on) { memcpy(sel + out, line, len); out += len; }
        line += len;
    }
    sel[out] = 0;
    free(all);
    return sel;
}

/* How many lines of the section headed by title (a line of the disassembly)
 * contain text; -1 when there is no such section. */
static int count_in_section(const char *all, const char *title, const char *text)
{
    const char *at = strstr(all, title);
    if (!at) return -1;
    int n = 0;
    for (const char *line = strchr(at, '\n'); line && line[1] && strncmp(line + 1, "rule ", 5) != 0;
         line = strchr(line + 1, '\n')) {
        const char *eol = strchr(line + 1, '\n');
        const char *hit = strstr(line + 1, text);
        if (hit && (!eol || hit < eol)) n++;
    }
    return n;
}

/* The fast program runs the elements that alternatives share once
 * (compiler/emit.c, shared_prefix): the three opening parentheses and white
 * spaces of SHARED_PREFIX_SRC's item are one PUNCT there, valued or not, and
 * three literals in the reference program. Alternatives that begin with a
 * capture, or that hold a cut, keep their own, and so does valued code where
 * a shared element has a value. Whether they match alike, with the same
 * trees, is checked with every other case. */
/* How many lines of the code of grammar src, in the section headed by title,
 * contain text; -1 when it does not compile or has no such section. */
static int count_in_code(const char *src, const char *title, const char *text)
{
    pego_grammar *g = pego_compile(src, strlen(src), "t.pego", NULL);
    char *all = g ? pego_grammar_disassemble(g) : NULL;
    int n = all ? count_in_section(all, title, text) : -1;
    free(all);
    pego_grammar_free(g);
    return n;
}

static void test_shared_prefix(void)
{
    CU_ASSERT_EQUAL(count_in_code(SHARED_PREFIX_SRC, "rule item, value-free:", "LIT \"(\""), 3);
    CU_ASSERT_EQUAL(count_in_code(SHARED_PREFIX_SRC, "rule item, fast, value-free:", "PUNCT ( ") +
                    count_in_code(SHARED_PREFIX_SRC, "rule item, fast, value-free:", "CHAR ("), 1);
    /* valued, the nodes begin where the shared elements begin */
    CU_ASSERT_EQUAL(count_in_code(SHARED_PREFIX_SRC, "rule item, fast:", "PUNCT ( ") +
                    count_in_code(SHARED_PREFIX_SRC, "rule item, fast:", "CHAR ("), 1);
    CU_ASSERT_EQUAL(count_in_code(SHARED_NOTHING_SRC, "rule item, fast, value-free:", "CHAR a"), 2);
    CU_ASSERT_EQUAL(count_in_code(SHARED_NOTHING_SRC, "rule inner, fast, value-free:", "CHAR d"), 2);
    /* a shared element with a value is shared in value-free code only */
    CU_ASSERT_EQUAL(count_in_code(SHARED_VALUE_SRC, "rule item, fast, value-free:", "CHAR a"), 1);
    CU_ASSERT_EQUAL(count_in_code(SHARED_VALUE_SRC, "rule item, fast:", "CHAR a"), 2);
}

/* A rule whose body is a jump table of calls is compiled into its call sites
 * in the fast program (compiler/emit.c, emit_dispatcher): in DISPATCHER_SRC's
 * list, word's span is there in value-free code and word's call in valued
 * code, and the call of value stands for list alone, entering value's body
 * past its table. Nesting near the limit is checked with every other case. */
static void test_dispatcher(void)
{
    pego_grammar *g = pego_compile(DISPATCHER_SRC, strlen(DISPATCHER_SRC), "t.pego", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    char *all = pego_grammar_disassemble(g);
    CU_ASSERT_PTR_NOT_NULL_FATAL(all);
    CU_ASSERT_EQUAL(count_in_section(all, "rule list, fast, value-free:", "BSPAN1 [a-z]"), 1);
    CU_ASSERT_EQUAL(count_in_section(all, "rule list, fast, value-free:", " value (value-free)"), 1);
    CU_ASSERT_EQUAL(count_in_section(all, "rule list, value-free:", " value (value-free)"), 1);
    CU_ASSERT_EQUAL(count_in_section(all, "rule list, value-free:", "BSPAN1 [a-z]") +
                    count_in_section(all, "rule list, value-free:", "word"), 0);
    /* valued: the calls of word, num and flag are made from list */
    CU_ASSERT_EQUAL(count_in_section(all, "rule list, fast:", "CALL word"), 1);
    CU_ASSERT_EQUAL(count_in_section(all, "rule list, fast:", " value -> "), 1);
    CU_ASSERT_EQUAL(count_in_section(all, "rule list (", "CALL word"), 0);
    /* every call of value the fast program makes is for list, past value's table */
    int value = pego_grammar_rule_index(g, "value"), calls = 0;
    for (uint32_t k = g->fast_start; k < g->prof_start; k++) {
        const vm_ins *in = &g->code[k];
        if ((in->op != OP_CALL && in->op != OP_CALLG) || (int)(in->a % (uint32_t)g->nrules) != value) continue;
        calls++;
        CU_ASSERT(g->code[in->b].op == OP_CALL && (int)(g->code[in->b].a % (uint32_t)g->nrules) ==
                                                  pego_grammar_rule_index(g, "list"));
    }
    CU_ASSERT(calls >= 2);
    free(all);
    pego_grammar_free(g);
}

static void test_compile(void)
{
    CU_ASSERT(NCASES >= 25);
    int ndefer = 0;
    for (size_t i = 0; i < NCASES; i++) {
        const fast_case *c = &cases[i];
        pego_grammar *g = compile_case(c);
        CU_ASSERT_PTR_NOT_NULL(g);
        if (!g) continue;
        /* the profiled loops take PDEFER's target to be three instructions on,
         * past the real call and its jump, where the call compiled in begins,
         * with a PIN for PDEFERPIN and a PINSPAN for PDEFERPINSPAN; PSPANOUT
         * goes on into the POUT three on, POUTRET into the RET after it, and
         * every such pair is fused */
        for (uint32_t k = g->prof_start; k + 3 < g->ncode; k++) {
            const vm_ins *in = &g->code[k];
            if (in->op == OP_PUNCT || in->op == OP_PUNCT2) {     /* its parts do not run */
                k += in->d - 1u;
                continue;
            }
            CU_ASSERT((in->op == OP_PSPANOUT) == ((in->op == OP_PSPAN || in->op == OP_PSPANOUT) &&
                                                  (in[3].op == OP_POUT || in[3].op == OP_POUTRET)));
            CU_ASSERT((in->op == OP_POUTRET) == ((in->op == OP_POUT || in->op == OP_POUTRET) && in[1].op == OP_RET));
            if (in->op != OP_PDEFER && in->op != OP_PDEFERPIN && in->op != OP_PDEFERPINSPAN) continue;
            ndefer++;
            CU_ASSERT(in->b == (int32_t)k + 3 && cc_opens_inline_call(in[3].op));
            CU_ASSERT((in->op == OP_PDEFERPIN) == (in[3].op == OP_PIN));
            CU_ASSERT((in->op == OP_PDEFERPINSPAN) == (in[3].op == OP_PINSPAN));
        }
        char *code = fast_sections(g);
        CU_ASSERT_PTR_NOT_NULL(code);
        if (!code) { pego_grammar_free(g); continue; }
        /* without predicates, every grammar has a fast program */
        CU_ASSERT(code[0] != 0);
        if (!code[0]) fprintf(stderr, "\n  %s: no fast program", c->what);
        char want[128];
        for (const char *w = c->fast_code; *w;) {
            size_t n = strcspn(w, "|");
            snprintf(want, sizeof want, "%.*s", (int)n, w);
            int negated = want[0] == '!';
            int found = strstr(code, want + negated) != NULL;
            CU_ASSERT(found != negated);
            if (found == negated)
                fprintf(stderr, "\n  %s: the fast program %s %s", c->what, negated ? "still has" : "lacks",
                        want + negated);
            w += n + (w[n] == '|');
        }
        free(code);
        pego_grammar_free(g);
    }
    CU_ASSERT(ndefer > 0);
}

/* The profiled program's Pratt machine takes over the lines that call
 * nothing, as the fast program's does, and those that are a call of a byte
 * span, which it counts (its counts stay the reference program's: every
 * comparison above checks them); it runs the others that call. */
static void test_profiled_pratt_lines(void)
{
    const char *src = "def main = e $$\n"
                      "def e = pratt {\n"
                      "    skip \" \"*\n"
                      "    operand @(?0-9)+\n"
                      "    operand name\n"
                      "    level { infix none \"<=\" / \"<\" }\n"
                      "    level { infix left -\"+\" infix left sign }\n"
                      "}\n"
                      "def name = @(?a-z)+\n"
                      "def sign = \"-\"\n";
    pego_grammar *g = pego_compile(src, strlen(src), "t.pego", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    char *code = pego_grammar_disassemble(g);
    CU_ASSERT_PTR_NOT_NULL_FATAL(code);
    static const char *const taken[] = {
        "rule e, profiled, skip (a byte span the machine scans itself)",
        "rule e, profiled, operand 1, value-free (a byte span the machine scans itself)",
        "rule e, profiled, operator 0, value-free (literals the machine matches, and makes the value of)",
        "rule e, profiled, operator 1, value-free (literals the machine matches)",
        "rule e, profiled, operand 2, value-free (a call of a byte span the machine scans and counts itself)",
    };
    static const char *const run[] = {   /* a call of sign: counted where it runs */
        "rule e, profiled, operator 2, value-free:",
    };
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++) {
        CU_ASSERT_PTR_NOT_NULL(strstr(code, taken[i]));
        if (!strstr(code, taken[i])) fprintf(stderr, "\n  lacks: %s", taken[i]);
    }
    for (size_t i = 0; i < sizeof run / sizeof *run; i++) {
        CU_ASSERT_PTR_NOT_NULL(strstr(code, run[i]));
        if (!strstr(code, run[i])) fprintf(stderr, "\n  lacks: %s", run[i]);
    }
    free(code);
    pego_grammar_free(g);
}

/* The profiled program matches a call of one byte test in PBYTE, one of one
 * byte span in PSPAN, an identifier's in PWORD, and white space with comments
 * that its span ends in PINSPAN (the counts of every comparison above check
 * what they count). */
static void test_profiled_counted_calls(void)
{
    static const struct { const char *src, *fused; } cases[] = {
        { COUNTED_CALLS_SRC, "PBYTE digit d (level 0)" },
        { COUNTED_CALLS_SRC, "PSPAN sp (level 0)" },
        { COUNTED_WORDS_SRC, "PWORD name (level 0)" },
        { COUNTED_WORDS_SRC, "PINSPAN ws (level 0)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pego_grammar *g = pego_compile(cases[i].src, strlen(cases[i].src), "t.pego", NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        char *code = pego_grammar_disassemble(g);
        CU_ASSERT_PTR_NOT_NULL_FATAL(code);
        CU_ASSERT_PTR_NOT_NULL(strstr(code, cases[i].fused));
        if (!strstr(code, cases[i].fused)) fprintf(stderr, "\n  lacks: %s", cases[i].fused);
        free(code);
        pego_grammar_free(g);
    }
}

/* One known case by hand: the fast program answers a match, the reference
 * option and a failure go to the reference program, with the same results. */
static void test_known_case(void)
{
    const char *src = cases[0].src;
    pego_grammar *g = pego_compile(src, strlen(src), "t.pego", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    pego_parser *p = pego_parser_new(g);
    const pego_result *r;
    const char *expected = "[(Seq \"let\" \"x\"@name)@item [\"1\" \"2\"]@item]@main";
    CU_ASSERT_EQUAL(pego_parse(p, "let x12", 7, NULL, &r), PEGO_OK);
    CU_ASSERT_EQUAL(pego_result_stats(r)->fast_program, 1);
    char *s = pego_result_print(r, PEGO_PRINT_SEXPR);
    CU_ASSERT_STRING_EQUAL(s, expected);
    free(s);
    pego_options ref = { .reference = 1 };
    CU_ASSERT_EQUAL(pego_parse(p, "let x12", 7, &ref, &r), PEGO_OK);
    CU_ASSERT_EQUAL(pego_result_stats(r)->fast_program, 0);
    s = pego_result_print(r, PEGO_PRINT_SEXPR);
    CU_ASSERT_STRING_EQUAL(s, expected);
    free(s);
    CU_ASSERT_EQUAL(pego_parse(p, "let 1", 5, NULL, &r), PEGO_SYNTAX_ERROR);
    CU_ASSERT_EQUAL(pego_result_stats(r)->fast_program, 0);
    CU_ASSERT_STRING_EQUAL(pego_result_error(r), "1:5: syntax error: expected (?a-z)");
    pego_parser_free(p);
    pego_grammar_free(g);
}

typedef void (*case_fn)(pego_parser *p, const fast_case *c, size_t index, tally *t);

/* Runs fn on a parser of every grammar, prints which grammars differ and the
 * totals under label, and adds them to the program's totals. */
static tally each_case(const char *label, case_fn fn)
{
    tally t = { 0 };
    for (size_t i = 0; i < NCASES; i++) {
        const fast_case *c = &cases[i];
        pego_grammar *g = compile_case(c);
        CU_ASSERT_PTR_NOT_NULL(g);
        if (!g) continue;
        pego_parser *p = pego_parser_new(g);
        unsigned long before = t.differences;
        t.shown_case = 0;
        fn(p, c, i, &t);
        if (t.differences > before)
            fprintf(stderr, "\n  %s: %lu differences", c->what, t.differences - before);
        pego_parser_free(p);
        pego_grammar_free(g);
    }
    fprintf(stderr, "\n  %s: %lu comparisons (%lu matched, %lu counted), %lu differences ", label, t.comparisons,
            t.matched, t.counted,
            t.differences);
    totals.comparisons += t.comparisons;
    totals.differences += t.differences;
    totals.matched += t.matched;
    totals.counted += t.counted;
    return t;
}

static void listed_inputs(pego_parser *p, const fast_case *c, size_t index, tally *t)
{
    (void)index;
    int matched = 0, failed = 0;
    for (size_t k = 0; c->inputs[k]; k++) {
        unsigned long before = t->matched;
        compare_all_modes(p, c, (const unsigned char *)c->inputs[k], strlen(c->inputs[k]), k, t);
        if (t->matched > before) matched++; else failed++;
    }
    /* the listed inputs must reach both outcomes */
    CU_ASSERT(matched > 0 && failed > 0);
    if (!matched || !failed) fprintf(stderr, "\n  %s: the listed inputs all %s", c->what, matched ? "match" : "fail");
}

static void test_listed_inputs(void)
{
    tally t = each_case("listed inputs", listed_inputs);
    CU_ASSERT_EQUAL(t.differences, 0);
}

static void generated_inputs(pego_parser *p, const fast_case *c, size_t index, tally *t)
{
    input_set set = { 0 };
    generate(c, index, &set);
    for (size_t k = 0; k < set.n; k++) {
        size_t len;
        const unsigned char *in = input_at(&set, k, &len);
        compare_all_modes(p, c, in, len, k, t);
    }
    input_free(&set);
}

static void test_generated_inputs(void)
{
    tally t = each_case("generated inputs", generated_inputs);
    /* generated inputs that never match would test little but the fallback */
    CU_ASSERT(t.matched > t.comparisons / 20);
    CU_ASSERT_EQUAL(t.differences, 0);
}

/* Near the nesting limit: for each input that matches, every limit from 1 up
 * to the first at which the reference program matches. The fast program keeps
 * a level in reserve for the calls it compiles into their callers; it must
 * never match where the reference program stops at the limit. */
static void nesting_limits(pego_parser *p, const fast_case *c, size_t index, tally *t)
{
    input_set set = { 0 };
    for (size_t k = 0; c->inputs[k]; k++)
        input_add(&set, (const unsigned char *)c->inputs[k], strlen(c->inputs[k]));
    generate(c, index, &set);
    for (size_t k = 0; k < set.n; k++) {
        size_t len;
        const unsigned char *in = input_at(&set, k, &len);
        const pego_result *r;
        pego_options ref = { .reference = 1, .recognize = 1 };
        if (pego_parse(p, (const char *)in, len, &ref, &r) != PEGO_OK) continue;
        for (int rec = 0; rec < 2; rec++)
            for (int m = 0; m < 2; m++) {
                pego_options o = { .recognize = rec, .memo = m ? PEGO_MEMO_NONE : PEGO_MEMO_DEFAULT };
                for (uint32_t depth = 1; depth <= 64; depth++) {
                    o.max_depth = depth;
                    compare(p, c, in, len, &o, 1, t);
                    ref = o;
                    ref.reference = 1;
                    if (pego_parse(p, (const char *)in, len, &ref, &r) == PEGO_OK) break;
                }
            }
    }
    input_free(&set);
}

static void test_nesting_limit(void)
{
    tally t = each_case("nesting limits", nesting_limits);
    CU_ASSERT_EQUAL(t.differences, 0);
}

/* A nest of DEEP arrays, with elements after some of them: the fast program
 * gives the reference program's results, matched or failing at the bottom, in
 * the middle or at the end, and its control stack takes at most 20 bytes per
 * level (it took 64: the frames of value and array; value now calls array in
 * tail position, and on a deep stack two frames share an entry, E_CALL2). */
#define DEEP 30000

static size_t deep_input(unsigned char *in, int broken)
{
    size_t len = 0;
    for (int i = 0; i < DEEP; i++) in[len++] = '[';
    in[len++] = broken == 1 ? 'x' : '1';
    for (int i = 0; i < DEEP; i++) {
        if (i % 7 == 3) memcpy(in + len, ",2", 2), len += 2;
        if (i % 11 == 5) memcpy(in + len, ",[[3],[]]", 9), len += 9;
        if (broken == 2 && i == DEEP / 2) in[len++] = ',';
        if (broken != 3 || i < DEEP - 1) in[len++] = ']';
    }
    return len;
}

/* The printed S-expression (the JSON form, indented, would take DEEP^2 bytes)
 * or the error of a parse, with its status and the program that answered. */
static char *deep_outcome(pego_parser *p, const unsigned char *in, size_t len, const pego_options *o)
{
    const pego_result *r;
    pego_status st = pego_parse(p, (const char *)in, len, o, &r);
    char head[64];
    snprintf(head, sizeof head, "%d %d ", (int)st, pego_result_stats(r)->fast_program);
    char *text = st == PEGO_OK ? pego_result_print(r, PEGO_PRINT_SEXPR) : NULL;
    char *out = concat3(head, text ? text : st == PEGO_OK ? "(no text)" : pego_result_error(r), "");
    free(text);
    return out;
}

static void test_deep_nesting(void)
{
    const char *src = "def main = value\n"
                      "def value = array / num\n"
                      "def array = -\"[\" -\"]\" / -\"[\" value (-\",\" value)* -\"]\"\n"
                      "def num = @(?0-9)+\n";
    pego_grammar *g = pego_compile(src, strlen(src), "t.pego", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    unsigned char *in = malloc(13 * (size_t)DEEP);
    pego_parser *p = pego_parser_new(g);
    for (int broken = 0; broken < 4; broken++) {
        size_t len = deep_input(in, broken);
        for (int rec = 0; rec < 2; rec++)
            for (int m = 0; m < 2; m++) {
                pego_options o = { .recognize = rec, .memo = m ? PEGO_MEMO_NONE : PEGO_MEMO_DEFAULT };
                char *fast = deep_outcome(p, in, len, &o);
                o.reference = 1;
                char *ref = deep_outcome(p, in, len, &o);
                int fst, fprog, rst, rprog;
                CU_ASSERT_EQUAL(sscanf(fast, "%d %d", &fst, &fprog), 2);
                CU_ASSERT_EQUAL(sscanf(ref, "%d %d", &rst, &rprog), 2);
                /* a match answered by the fast program, anything else by the reference program */
                CU_ASSERT_EQUAL(fst, broken ? PEGO_SYNTAX_ERROR : PEGO_OK);
                CU_ASSERT_EQUAL(fst, rst);
                CU_ASSERT_EQUAL(fprog, !broken);
                CU_ASSERT_STRING_EQUAL(strchr(fast + 2, ' '), strchr(ref + 2, ' '));
                if (strcmp(strchr(fast + 2, ' '), strchr(ref + 2, ' ')) != 0)
                    fprintf(stderr, "\n  deep nest %d, %s, memo %s: the programs differ", broken,
                            rec ? "recognize" : "tree", m ? "none" : "default");
                free(fast);
                free(ref);
            }
    }
    /* at the nesting limits around what the nest needs (two calls a level):
     * the fast program never matches where the reference program stops */
    size_t len = deep_input(in, 0);
    int stopped = 0, matched = 0;
    for (uint32_t depth = 2 * DEEP - 8; depth <= 2 * DEEP + 8; depth++)
        for (int rec = 0; rec < 2; rec++) {
            pego_options o = { .recognize = rec, .max_depth = depth };
            char *fast = deep_outcome(p, in, len, &o);
            o.reference = 1;
            char *ref = deep_outcome(p, in, len, &o);
            CU_ASSERT_STRING_EQUAL(strchr(fast + 2, ' '), strchr(ref + 2, ' '));
            if (ref[0] == '0') matched++; else stopped++;
            free(fast);
            free(ref);
        }
    CU_ASSERT(matched > 0 && stopped > 0);
    pego_parser_free(p);
    /* a parser of its own: the reference program's stack is not the fast program's */
    p = pego_parser_new(g);
    const pego_result *r;
    CU_ASSERT_EQUAL(pego_parse(p, (const char *)in, deep_input(in, 0), NULL, &r), PEGO_OK);
    CU_ASSERT_EQUAL(pego_result_stats(r)->fast_program, 1);
    size_t per_level = p->capes * sizeof(vm_entry) / DEEP;
    CU_ASSERT(per_level <= 20);
    if (per_level > 20) fprintf(stderr, "\n  control stack: %zu bytes per level", per_level);
    pego_parser_free(p);
    free(in);
    pego_grammar_free(g);
}

/* ---- random grammars ----
 * The table above tests what its author thought of; random grammars combine
 * the constructs in ways nobody would write by hand (cuts before the first
 * byte, optionals of negated classes next to U+FFFD, left recursion through
 * lookaheads). Small rules over a tiny alphabet, so that random inputs often
 * match. A grammar the compiler refuses (a capture without a value, ...) is
 * skipped. */

#define RANDOM_GRAMMARS        400
#define INPUTS_PER_GRAMMAR     40

typedef struct {
    char     text[4096];
    size_t   len;
    uint64_t rng;
    int      nrules;
    /* repetitions of at most three iterations, no Pratt expression or
     * #recover, and a rule calls only rules after it (no recursion): every
     * match has a bounded length, so that an iteration of main's repetition
     * has a bounded overshoot (compiler/overshoot.c) */
    int      bounded;
    /* with bounded: rules begin with, and sequences hold, pieces from a
     * short list (shared_pieces), so that alternatives that call different
     * rules begin alike, and a loop at the end of a rule meets a caller's
     * continuation that begins like its body (the overshoot analysis looks
     * into the rules called there) */
    int      shared;
    int      rule;          /* the rule being written */
} grammar_gen;

static const char *const shared_pieces[] = {
    "(?ab){0,3}", "\"c\"", "(?a-b){0,2} \"c\"", "\"ab\"?", "(?^a){0,2}", "\"b\" (?a)?",
};

static void gen_add(grammar_gen *g, const char *t)
{
    size_t n = strlen(t);
    if (g->len + n < sizeof g->text) {
        memcpy(g->text + g->len, t, n + 1);
        g->len += n;
    }
}

static void gen_choice(grammar_gen *g, int depth, int nocap);

static void gen_primary(grammar_gen *g, int depth, int nocap)
{
    static const char *const literals[] = {
        "\"a\"", "\"b\"", "\"ab\"", "\"ba\"", "\"c\"", "\"\\u{e9}\"", "\"\\u{FFFD}\"", "\"\"",
    };
    static const char *const classes[] = {
        "(?a-b)", "(?^a)", "(?b-c)", "(?^ab)", "(?a\\u{e9})", "(?^\\u{e9})", "(?c)",
    };
    static const char *const zero_width[] = { "$$", "^", "$", "_", "--", "^^" };
    char call[16];
    size_t pick;
    if (depth >= 3) {                                  /* a capture's operand: a terminal */
        static const size_t terminals[] = { 0, 2, 4 };
        pick = terminals[below(&g->rng, 3)];
    } else {
        pick = below(&g->rng, depth >= 2 ? 6 : 10);   /* from depth 2, no more groups */
    }
    switch (pick) {
    case 0: case 1:
        gen_add(g, literals[below(&g->rng, sizeof literals / sizeof literals[0])]);
        break;
    case 2:
        gen_add(g, classes[below(&g->rng, sizeof classes / sizeof classes[0])]);
        break;
    case 3: case 8:
        if (g->bounded && g->rule + 1 >= g->nrules) {
            gen_add(g, "\"b\"");
            break;
        }
        if (g->bounded)
            snprintf(call, sizeof call, "r%d", g->rule + 1 + (int)below(&g->rng, (size_t)(g->nrules - g->rule - 1)));
        else
            snprintf(call, sizeof call, "r%d", (int)below(&g->rng, (size_t)g->nrules));
        gen_add(g, call);
        break;
    case 4:
        gen_add(g, ".");
        break;
    case 5:
        gen_add(g, zero_width[below(&g->rng, sizeof zero_width / sizeof zero_width[0])]);
        break;
    default:
        gen_add(g, "(");
        gen_choice(g, depth + 1, nocap);
        gen_add(g, ")");
        break;
    }
}

/* Captures hold terminals only: a capture of a value that has fields prints
 * those fields again, and through recursion printed trees grow exponentially
 * with the input. */
static void gen_prefixed(grammar_gen *g, int depth, int nocap)
{
    int terminal = 0;
    switch (below(&g->rng, 14)) {
    case 0: gen_add(g, "&"); break;
    case 1: gen_add(g, "!"); nocap = 1; break;
    case 2: gen_add(g, "@"); nocap = 1; break;
    case 3: gen_add(g, "-"); nocap = 1; break;
    case 4:
        if (!nocap) {
            gen_add(g, below(&g->rng, 2) ? "x:" : "y:");
            terminal = 1;
        }
        break;
    default: break;
    }
    gen_primary(g, terminal ? 3 : depth, nocap);
    char bounds[16];
    switch (below(&g->rng, 10)) {
    case 0: gen_add(g, g->bounded ? "{0,3}" : "*"); break;
    case 1: gen_add(g, g->bounded ? "{1,3}" : "+"); break;
    case 2: gen_add(g, "?"); break;
    case 3: {
        int lo = (int)below(&g->rng, 3);
        snprintf(bounds, sizeof bounds, "{%d,%d}", lo, lo + (int)below(&g->rng, 3));
        gen_add(g, bounds);
        break;
    }
    default: break;
    }
}

/* A rule's choice has up to five alternatives, so that three or more with
 * disjoint first bytes (a jump table) are common. */
static void gen_choice(grammar_gen *g, int depth, int nocap)
{
    size_t alts = 1 + below(&g->rng, depth ? 2 : 5);
    for (size_t a = 0; a < alts; a++) {
        if (a) gen_add(g, " / ");
        size_t items = 1 + below(&g->rng, depth ? 2 : 3);
        for (size_t i = 0; i < items; i++) {
            if (i) gen_add(g, " ");
            if (g->shared && below(&g->rng, 3) == 0)
                gen_add(g, shared_pieces[below(&g->rng, sizeof shared_pieces / sizeof shared_pieces[0])]);
            else
                gen_prefixed(g, depth, nocap);
        }
    }
}

/* A Pratt expression over the grammar's rules: random operands and
 * operators of every kind, on up to three levels, sometimes with a skip. */
static void gen_pratt(grammar_gen *g)
{
    static const char *const kinds[] = { "prefix", "postfix", "infix left", "infix right", "infix none" };
    static const char *const ops[] = { "\"a\"", "\"b\"", "\"ab\"", "\"c\"", "(?b-c)" };
    gen_add(g, "pratt {");
    if (below(&g->rng, 3) == 0) gen_add(g, " skip \" \"*");
    size_t operands = 1 + below(&g->rng, 2);
    for (size_t i = 0; i < operands; i++) {
        gen_add(g, " operand ");
        gen_prefixed(g, 1, 1);
    }
    size_t levels = below(&g->rng, 4);
    for (size_t l = 0; l < levels; l++) {
        gen_add(g, " level {");
        size_t n = 1 + below(&g->rng, 2);
        for (size_t k = 0; k < n; k++) {
            gen_add(g, " ");
            gen_add(g, kinds[below(&g->rng, sizeof kinds / sizeof kinds[0])]);
            gen_add(g, " ");
            gen_add(g, ops[below(&g->rng, sizeof ops / sizeof ops[0])]);
        }
        gen_add(g, " }");
    }
    gen_add(g, " }");
}

/* Rules are choices; one in six is a Pratt expression, and one choice in
 * five is attributed with #recover (a skip of a class or a literal, without
 * captures). */
static void random_grammar(grammar_gen *g, uint64_t seed, const char *main_rule)
{
    static const char *const skips[] = { "(?a-b)+", "(?^a)", "\"c\"", "(?^\\u{e9})* \"b\"", "." };
    g->len = 0;
    g->text[0] = 0;
    g->rng = seed;
    g->nrules = 1 + (int)below(&g->rng, 3);
    for (int r = 0; r < g->nrules; r++) {
        char head[32];
        g->rule = r;
        snprintf(head, sizeof head, "def r%d = ", r);
        gen_add(g, head);
        if (r && below(&g->rng, 6) == 0 && !g->bounded) {
            gen_pratt(g);
        } else if (below(&g->rng, 5) == 0 && !g->bounded) {
            gen_add(g, "(");
            gen_choice(g, 0, 0);
            gen_add(g, ") #recover(skip=");
            gen_add(g, skips[below(&g->rng, sizeof skips / sizeof skips[0])]);
            gen_add(g, ")");
        } else if (g->shared && below(&g->rng, 2) == 0) {
            /* a piece, the rule's choice, and sometimes a loop that begins with a piece */
            gen_add(g, shared_pieces[below(&g->rng, sizeof shared_pieces / sizeof shared_pieces[0])]);
            gen_add(g, " (");
            gen_choice(g, 1, 0);
            gen_add(g, ")");
            if (below(&g->rng, 2)) {
                gen_add(g, " (");
                gen_add(g, shared_pieces[below(&g->rng, sizeof shared_pieces / sizeof shared_pieces[0])]);
                gen_add(g, " ");
                gen_prefixed(g, 1, 0);
                gen_add(g, "){0,3}");
            }
        } else {
            gen_choice(g, 0, 0);
        }
        gen_add(g, "\n");
    }
    gen_add(g, main_rule);
}

/* The pieces of random inputs: over the grammars' alphabet, with bytes no
 * grammar names, broken UTF-8 and line ends. */
static const char *const symbols[] = {
    "a", "b", "c", "ab", "\xc3\xa9", "\xff", "\x80", "\xef\xbf\xbd", " ", "\n", "\xc3",
};

/* A random input of up to eight symbols, in in[0..64); returns its length. */
static size_t random_input(uint64_t *rng, unsigned char *in)
{
    size_t n = 0, count = below(rng, 9);
    for (size_t j = 0; j < count; j++) {
        const char *sym = symbols[below(rng, sizeof symbols / sizeof symbols[0])];
        memcpy(in + n, sym, strlen(sym));
        n += strlen(sym);
    }
    return n;
}

static void test_random_grammars(void)
{
    static grammar_gen gen;
    tally t = { .give_up_allowed = 1 };
    int compiled = 0, pratt = 0, recover = 0;
    for (int i = 0; i < RANDOM_GRAMMARS; i++) {
        random_grammar(&gen, 0x6a09e667f3bcc908ull + 1000003ull * (uint64_t)i, "def main = r0\n");
        pego_grammar *g = pego_compile(gen.text, gen.len, "t.pego", NULL);
        if (!g) continue;
        compiled++;
        pratt += strstr(gen.text, "pratt {") != NULL;
        recover += strstr(gen.text, "#recover") != NULL;
        fast_case c = { "random grammar", gen.text, "", NULL };
        pego_parser *p = pego_parser_new(g);
        unsigned long before = t.differences;
        t.shown_case = 0;
        for (int k = 0; k < INPUTS_PER_GRAMMAR; k++) {
            unsigned char in[64];
            size_t n = random_input(&gen.rng, in);
            compare_all_modes(p, &c, in, n, (size_t)k, &t);
        }
        if (t.differences > before)
            fprintf(stderr, "\n  random grammar %d: %lu differences", i, t.differences - before);
        pego_parser_free(p);
        pego_grammar_free(g);
    }
    fprintf(stderr, "\n  random grammars: %d compiled (%d with Pratt expressions, %d with #recover), "
            "%lu comparisons (%lu matched, %lu given up at a recovery, %lu counted), %lu differences ",
            compiled, pratt, recover, t.comparisons, t.matched, t.given_up, t.counted, t.differences);
    totals.comparisons += t.comparisons;
    totals.differences += t.differences;
    totals.matched += t.matched;
    totals.counted += t.counted;
    /* most random grammars compile, and their inputs match often enough */
    CU_ASSERT(compiled > RANDOM_GRAMMARS / 2);
    CU_ASSERT(pratt >= RANDOM_GRAMMARS / 20 && recover >= RANDOM_GRAMMARS / 20);
    CU_ASSERT(t.matched > t.comparisons / 20);
    /* the fast program goes on past a recovery almost everywhere (with these
     * seeds, everywhere; with others, up to about 1% of the matches are given up) */
    CU_ASSERT(t.given_up * 50 <= t.matched);
    CU_ASSERT_EQUAL(t.differences, 0);
}

/* ---- the overshoot of random grammars' rules ----
 * The deciding run skips the iterations that a failed fast run claims when
 * the error lies past their overshoot (compiler/overshoot.c): a bound on how
 * far past its end a match records an expectation. A trace sink on the
 * reference program sees every call's exit, with the farthest position its
 * run recorded an expectation at: for a call that matched outside a
 * lookahead, of a rule with a bound, that position must lie within the
 * bound past the call's end. Random grammars of both kinds (the bounded ones
 * have bounds almost everywhere), on random inputs and on repetitions of
 * the pieces their first rule matches. */

typedef struct {
    const pego_grammar *g;
    unsigned long checked, over;     /* calls checked, and those past their bound */
    int shown, grammar;              /* the last grammar shown (-1: none), the one parsed */
    const char *text;
} overshoot_check;

static int check_overshoot(const pego_trace_event *ev, void *userdata)
{
    overshoot_check *oc = userdata;
    if (ev->kind != PEGO_TRACE_EXIT || !ev->matched || ev->lookahead || ev->rule_id < 0 || !oc->g->overshoot) return 0;
    uint32_t bound = oc->g->overshoot[ev->rule_id];
    uint64_t far;
    size_t n;
    if (bound == OVERSHOOT_NONE || !pego_trace_failure(ev, &far, &n)) return 0;
    oc->checked++;
    if (far > ev->end + bound) {
        if (oc->over++ < MAX_SHOWN && oc->shown != oc->grammar) {
            oc->shown = oc->grammar;
            fprintf(stderr, "\n  rule %s matched [%llu, %llu) and recorded at %llu, past its overshoot %u:\n%s",
                    ev->rule, (unsigned long long)ev->pos, (unsigned long long)ev->end, (unsigned long long)far,
                    (unsigned)bound, oc->text);
        }
    }
    return 0;
}

static void test_overshoot(void)
{
    static grammar_gen gen;
    overshoot_check oc = { .shown = -1 };
    unsigned long bounded_rules = 0, rules = 0;
    for (int i = 0; i < RANDOM_GRAMMARS / 2; i++) {
        gen.bounded = i % 2;
        gen.shared = i % 4 == 3;
        random_grammar(&gen, 0x3c6ef372fe94f82bull + 1000003ull * (uint64_t)i, "def main = (r0 \"|\")* !.\n");
        pego_grammar *g = pego_compile(gen.text, gen.len, "t.pego", NULL);
        if (!g) continue;
        for (int r = 0; g->overshoot && r < g->nrules; r++) {
            rules++;
            bounded_rules += g->overshoot[r] != OVERSHOOT_NONE;
        }
        pego_parser *p = pego_parser_new(g);
        oc.g = g;
        oc.grammar = i;
        oc.text = gen.text;
        pego_parser_set_trace(p, check_overshoot, &oc);
        pego_options o = { .recognize = 1, .unit = PEGO_UNIT_BYTES, .start_rule = "r0" };
        unsigned char big[512];
        for (int k = 0; k < INPUTS_PER_GRAMMAR; k++) {
            const pego_result *r;
            size_t n = random_input(&gen.rng, big);
            o.start_rule = k % 2 ? "main" : "r0";
            /* a piece r0 matches, repeated, one byte changed */
            if (pego_parse(p, (const char *)big, n, &o, &r) == PEGO_OK && k % 2 == 0 && n) {
                size_t len = n;              /* the first copy is the piece itself */
                big[len++] = '|';
                while (len + n + 1 < sizeof big) {
                    memcpy(big + len, big, n);
                    len += n;
                    big[len++] = '|';
                }
                big[below(&gen.rng, len)] = (unsigned char)"abc|"[below(&gen.rng, 4)];
                o.start_rule = "main";
                pego_parse(p, (const char *)big, len, &o, &r);
            }
        }
        pego_parser_free(p);
        pego_grammar_free(g);
    }
    fprintf(stderr, "\n  %lu of %lu rules with an overshoot; %lu matched calls checked, %lu past it ",
            bounded_rules, rules, oc.checked, oc.over);
    CU_ASSERT(bounded_rules * 4 >= rules);
    CU_ASSERT(oc.checked >= 10000);
    CU_ASSERT_EQUAL(oc.over, 0);
}

/* The overshoot where the analysis looks into the rules called: alternatives
 * that call different rules beginning alike, a rule whose last loop or
 * option meets what follows its call, and calls of calls. Each grammar
 * parses every input of up to OVERSHOOT_INPUT_LEN bytes over its alphabet;
 * every matched call of a rule with a bound must record within it, and each
 * grammar names a rule whose bound the analysis must find no larger than
 * the grammar says (so that the case stays one where the analysis looked
 * into the calls). */
#define OVERSHOOT_INPUT_LEN 6

static void test_overshoot_calls(void)
{
    static const struct {
        const char *text, *alphabet, *rule;
        uint32_t    at_most;
    } cases[] = {
        /* an option at the end of the rule called, then what follows the call */
        { "def main = r0 \"b\"\ndef r0 = r1 \"b\"\ndef r1 = \"a\" (\"bc\" \"d\")?\n", "abcd", "r0", 2 },
        /* a loop at the end of the rule called meets a continuation that begins like its body */
        { "def main = f \";\"\n"
          "def f = n s \"(\" s args? s \")\"\n"
          "def args = n (s \",\" s n)*\n"
          "def n = (?ab){1,2}\n"
          "def s = \" \"{0,2}\n", "ab(), ;", "f", 1 },
        /* alternatives that call rules beginning alike */
        { "def main = (st \";\")* !.\n"
          "def st = as / up / cl\n"
          "def as = p s \"=\" s p\n"
          "def up = p s \"+=\" s p\n"
          "def cl = p s \"(\" s \")\"\n"
          "def p = (?ab) (\".\" (?ab))?\n"
          "def s = \" \"?\n", "ab.=+(); ", "st", 2 },
        /* a loop's last attempt that calls a rule beginning like what follows */
        { "def main = r0 \"c\"\ndef r0 = \"a\" (r1 \"b\")* r2\ndef r1 = \"c\"? \"a\"\ndef r2 = \"c\"? \"d\"\n",
          "abcd", "r0", 1 },
    };
    overshoot_check oc = { .shown = -1 };
    unsigned long inputs = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pego_grammar *g = pego_compile(cases[i].text, strlen(cases[i].text), "t.pego", NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(g);
        int id = pego_grammar_rule_index(g, cases[i].rule);
        CU_ASSERT_FATAL(id >= 0 && g->overshoot);
        if (g->overshoot[id] > cases[i].at_most)
            fprintf(stderr, "\n  rule %s: overshoot %u, not at most %u:\n%s", cases[i].rule,
                    (unsigned)g->overshoot[id], (unsigned)cases[i].at_most, cases[i].text);
        CU_ASSERT(g->overshoot[id] <= cases[i].at_most);
        pego_parser *p = pego_parser_new(g);
        oc.g = g;
        oc.grammar = (int)i;
        oc.text = cases[i].text;
        pego_parser_set_trace(p, check_overshoot, &oc);
        pego_options o = { .recognize = 1, .unit = PEGO_UNIT_BYTES };
        const char *abc = cases[i].alphabet;
        size_t k = strlen(abc);
        char in[OVERSHOOT_INPUT_LEN];
        size_t digit[OVERSHOOT_INPUT_LEN];
        for (size_t len = 0; len <= OVERSHOOT_INPUT_LEN; len++) {
            memset(digit, 0, sizeof digit);
            for (;;) {                      /* every input of len bytes */
                for (size_t j = 0; j < len; j++) in[j] = abc[digit[j]];
                const pego_result *r;
                pego_parse(p, in, len, &o, &r);
                inputs++;
                size_t j = 0;
                while (j < len && ++digit[j] == k) digit[j++] = 0;
                if (j == len) break;
            }
        }
        pego_parser_free(p);
        pego_grammar_free(g);
    }
    fprintf(stderr, "\n  %zu grammars, %lu inputs: %lu matched calls checked, %lu past their overshoot ",
            sizeof cases / sizeof cases[0], inputs, oc.checked, oc.over);
    CU_ASSERT(oc.checked >= 10000);
    CU_ASSERT_EQUAL(oc.over, 0);
}

/* ---- long inputs of random grammars ----
 * The inputs above are a few bytes long, far below the cap of a deciding
 * run's probes (4,096 bytes past the call, vm/decide.c). Here a random
 * grammar's start rule repeats r0, `(r0 "|")* !.`, over up to 6,000 bytes
 * made of short inputs that r0 matches, most with one byte changed, removed
 * or added: the fast program's guess of the error's position (the deciding
 * run's bound) and the cap come into play. No memo policy "none": some
 * random grammars take exponential time without memoization. */

#define LONG_GRAMMARS      30     /* and as many bounded ones (grammar_gen.bounded) */
#define LONG_INPUTS        4
#define LONG_MAX           6000

static void test_long_inputs(void)
{
    static grammar_gen gen;
    static unsigned char big[LONG_MAX + 64];
    tally t = { .give_up_allowed = 1 };
    unsigned long longest = 0, over_span = 0, quadratic = 0;
    unsigned long bounded_errors = 0, bounded_claimed = 0;
    for (int i = 0; i < 2 * LONG_GRAMMARS; i++) {
        gen.bounded = i >= LONG_GRAMMARS;
        gen.shared = gen.bounded && i % 2;
        random_grammar(&gen, 0xbb67ae8584caa73bull + 1000003ull * (uint64_t)i, "def main = (r0 \"|\")* !.\n");
        pego_grammar *g = pego_compile(gen.text, gen.len, "t.pego", NULL);
        if (!g) continue;
        fast_case c = { "random grammar, long input", gen.text, "", NULL };
        pego_parser *p = pego_parser_new(g);
        unsigned long errors_before = t.comparisons - t.matched, claimed_before = t.claimed;
        /* the pieces: short inputs that r0 matches */
        unsigned char pieces[16][64];
        size_t plen[16], np = 0;
        for (int k = 0; k < 60 && np < 16; k++) {
            pego_options o = { .recognize = 1, .start_rule = "r0", .reference = 1 };
            const pego_result *r;
            plen[np] = random_input(&gen.rng, pieces[np]);
            if (pego_parse(p, (const char *)pieces[np], plen[np], &o, &r) == PEGO_OK) np++;
        }
        unsigned long before = t.differences;
        t.shown_case = 0;
        for (int k = 0; np && k < LONG_INPUTS; k++) {
            /* the bounded grammars' inputs are long: their claims skip more
             * than a probe's span */
            size_t n = 0, want = gen.bounded ? LONG_MAX - 64 - below(&gen.rng, 1000)
                                             : 1 + below(&gen.rng, k % 2 ? LONG_MAX - 64 : 400);
            while (n < want) {
                size_t q = below(&gen.rng, np);
                memcpy(big + n, pieces[q], plen[q]);
                n += plen[q];
                big[n++] = '|';
            }
            /* a change near the end (where a deciding run's bound is a good
             * guess), or anywhere; or none */
            size_t change = below(&gen.rng, 4);
            if (change) {
                size_t at = below(&gen.rng, 2) ? n - 1 - below(&gen.rng, n < 256 ? n : 256) : below(&gen.rng, n);
                if (change == 1) {
                    big[at] = (unsigned char)"abc|\x01"[below(&gen.rng, 5)];
                } else if (change == 2) {
                    memmove(big + at, big + at + 1, n - at - 1);
                    n--;
                } else {
                    memmove(big + at + 1, big + at, n - at);
                    big[at] = (unsigned char)"abc|"[below(&gen.rng, 4)];
                    n++;
                }
            }
            /* a grammar that calls on at every position (a repetition of a
             * lookahead of a call that matches empty) takes quadratic time on
             * a long input: its inputs are left to the short ones above */
            pego_options ro = { .recognize = 1, .reference = 1 };
            const pego_result *r;
            pego_parse(p, (const char *)big, n, &ro, &r);
            if (pego_result_stats(r)->calls > 40 * (uint64_t)n) {
                quadratic++;
                continue;
            }
            if (n > longest) longest = n;
            if (n > 4096) over_span++;
            for (int rec = 0; rec < 2; rec++)
                for (int m = 0; m < 2; m++) {
                    pego_options o = { .recognize = rec, .memo = m ? PEGO_MEMO_ALL : PEGO_MEMO_DEFAULT,
                                       .unit = k % 2 ? PEGO_UNIT_BYTES : PEGO_UNIT_CODEPOINTS };
                    compare(p, &c, big, n, &o, 0, &t);
                }
        }
        if (t.differences > before)
            fprintf(stderr, "\n  random grammar %d, long inputs: %lu differences", i, t.differences - before);
        if (gen.bounded) {
            bounded_errors += t.comparisons - t.matched - errors_before;
            bounded_claimed += t.claimed - claimed_before;
        }
        pego_parser_free(p);
        pego_grammar_free(g);
    }
    unsigned long errors = t.comparisons - t.matched;
    fprintf(stderr, "\n  long inputs: %lu comparisons (%lu matched, %lu syntax errors, %lu decided by a deciding run, "
            "%lu of them skipping iterations claimed by the fast run; "
            "%lu inputs over 4096 bytes, the longest %lu; %lu inputs left out, quadratic; of the bounded grammars' "
            "%lu syntax errors, %lu skipping claimed iterations), %lu differences ",
            t.comparisons, t.matched, errors, t.decided, t.claimed, over_span, longest, quadratic,
            bounded_errors, bounded_claimed, t.differences);
    totals.comparisons += t.comparisons;
    totals.differences += t.differences;
    totals.matched += t.matched;
    totals.counted += t.counted;
    /* long inputs, errors among them, and most errors decided by a deciding run */
    CU_ASSERT(over_span >= LONG_GRAMMARS / 4);
    CU_ASSERT(t.matched > t.comparisons / 10 && errors > t.comparisons / 4);
    CU_ASSERT(t.decided * 2 > errors);
    CU_ASSERT(t.claimed * 20 >= errors);        /* some skipping iterations that the fast run claimed */
    CU_ASSERT_EQUAL(t.differences, 0);
}

/* ---- the profiled program's counts on the fixtures and benchmark inputs ---- */

static const fast_case fixture_case = { "fixture", "(a fixture grammar)", "", NULL };

static int fixture_counts(const pego_grammar *g, const char *file, const char *input, size_t len, void *ctx)
{
    tally *t = ctx;
    if (!g->has_fast) return 0;         /* predicates: profiled on the reference program */
    pego_parser *p = pego_parser_new(g);
    unsigned long before = t->differences;
    for (int rec = 0; rec < 2; rec++) {
        pego_options o = { .recognize = rec, .unit = rec ? PEGO_UNIT_BYTES : PEGO_UNIT_CODEPOINTS };
        t->shown_case = 0;
        if (compare(p, &fixture_case, (const unsigned char *)input, len, &o, 0, t))
            fprintf(stderr, "\n  (in %s)", file);
    }
    pego_parser_free(p);
    return (int)(t->differences - before);
}

/* Output of a benchmark input generator of the build tree, or NULL. */
static char *generated(const char *command, size_t *len)
{
    FILE *f = popen(command, "r");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0, k;
    char *b = malloc(cap);
    while ((k = fread(b + n, 1, cap - n, f)) > 0) {
        n += k;
        if (n == cap) b = realloc(b, cap *= 2);
    }
    if (pclose(f) != 0) { free(b); return NULL; }
    *len = n;
    return b;
}

/* A grammar file of the source tree (path from its top), compiled; its source
 * in source (size bytes at most); NULL when it cannot be read or compiled. */
static pego_grammar *source_grammar(const char *file, char *source, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", fixtures_srcdir(), file);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t n = fread(source, 1, size - 1, f);
    fclose(f);
    source[n] = 0;
    return pego_compile(source, n, file, NULL);
}

/* The benchmark's JSON grammar (fixtures/json.pego), its source in json_source. */
static char json_source[16384];
static pego_grammar *json_grammar(void)
{
    return source_grammar("fixtures/json.pego", json_source, sizeof json_source);
}

/* The benchmarks' grammars on their generators' inputs (bench/run), at sizes
 * of their own (the accuracy grammars' inputs are their parts in the order of
 * main; config's, the debugging guide's statements repeated; $srcdir is the
 * source tree). Grammars with a fast program must match in both modes, and
 * count. */
static const struct { const char *command, *grammar; } bench_inputs[] = {
    { "./bench/gen-json 20000 1", "fixtures/json.pego" },
    { "./bench/gen-json 200000 7", "fixtures/json.pego" },
    { "./bench/gen-json 50000 2", "fixtures/json-typed.pego" },
    { "./bench/gen-csv 200000", "fixtures/csv.pego" },
    { "cat \"$srcdir\"/tests/golden/guide/config.txt \"$srcdir\"/tests/golden/guide/config.txt", "fixtures/config.pego" },
    { "./bench/gen-csv 100000 5", "bench/stream/csv.pego" },
    { "./bench/gen-arith 50000", "fixtures/arith_lr.pego" },
    { "./bench/gen-calc 100000", "fixtures/calc_pratt.pego" },
    { "./bench/gen-calc 100000", "bench/equivalents/calc_pratt.pego" },
    { "./bench/gen-calc --stmts 100000", "fixtures/stmts.pego" },
    { "./bench/gen-calc --stmts 100000", "bench/equivalents/stmts.pego" },
    { "./bench/gen-accuracy runs 40000 1; ./bench/gen-accuracy words 10000 2; "
      "./bench/gen-accuracy digits 2000 3; ./bench/gen-accuracy tries 10000 4", "bench/accuracy/mixed.pego" },
    { "./bench/gen-accuracy runs 40000 5; ./bench/gen-accuracy commas 2000 6", "bench/accuracy/calls.pego" },
};

static void test_fixture_counts(void)
{
    tally t = { 0 };
    int grammars = 0, inputs = 0, fast = 0;
    CU_ASSERT_EQUAL(fixtures_each(fixture_counts, &t, &grammars, &inputs), 0);
    setenv("srcdir", fixtures_srcdir(), 1);
    for (size_t i = 0; i < sizeof bench_inputs / sizeof bench_inputs[0]; i++) {
        static char source[65536];
        pego_grammar *g = source_grammar(bench_inputs[i].grammar, source, sizeof source);
        CU_ASSERT_PTR_NOT_NULL(g);
        size_t len = 0;
        char *in = generated(bench_inputs[i].command, &len);
        CU_ASSERT_PTR_NOT_NULL(in);
        if (g && in) {
            unsigned long matched = t.counted;
            fixture_counts(g, bench_inputs[i].grammar, in, len, &t);
            if (g->has_fast) {
                fast++;
                if (t.counted != matched + 2)
                    fprintf(stderr, "\n  %s on %s: counted %lu of 2 modes", bench_inputs[i].grammar,
                            bench_inputs[i].command, t.counted - matched);
                CU_ASSERT_EQUAL(t.counted, matched + 2);      /* both modes matched and were counted */
            }
        }
        free(in);
        pego_grammar_free(g);
    }
    fprintf(stderr, "\n  %d fixture grammars, %d inputs, and %d benchmark inputs (%d with a fast program): "
            "%lu comparisons (%lu counted), %lu differences ", grammars, inputs,
            (int)(sizeof bench_inputs / sizeof bench_inputs[0]), fast, t.comparisons, t.counted, t.differences);
    totals.comparisons += t.comparisons;
    totals.differences += t.differences;
    totals.matched += t.matched;
    totals.counted += t.counted;
    CU_ASSERT(fast >= 9);
    CU_ASSERT(t.counted >= 10);
    CU_ASSERT_EQUAL(t.differences, 0);
}

/* Syntax errors in a large input: the benchmark's JSON with one byte changed
 * at a tenth, half, nine tenths and near the end of it, in three ways. The
 * error must be the reference program's, and decided by the deciding run
 * (docs/architecture.md), which stands the fast program's probes for the calls
 * below the error: the first run must decide all but a few. */
static void test_large_errors(void)
{
    pego_grammar *g = json_grammar();
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    size_t len = 0;
    char *in = generated("./bench/gen-json 100000 3", &len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(in);
    pego_parser *p = pego_parser_new(g);
    fast_case c = { "generated JSON with one byte changed", json_source, "", NULL };
    static const char bytes[] = { 0x01, 'x', ']' };
    static const int permille[] = { 100, 500, 900, 998 };
    tally t = { 0 };
    int first = 0, runs = 0, probing = 0, counted_decided = 0, claimed = 0;
    for (size_t b = 0; b < sizeof bytes; b++) {
        for (size_t k = 0; k < sizeof permille / sizeof permille[0]; k++) {
            size_t at = len * (size_t)permille[k] / 1000;
            char saved = in[at];
            in[at] = bytes[b];
            for (int rec = 0; rec < 2; rec++) {
                for (int m = 0; m < 2; m++) {
                    pego_options o = { .recognize = rec, .memo = m ? PEGO_MEMO_NONE : PEGO_MEMO_DEFAULT };
                    const pego_result *r;
                    if (pego_parse(p, in, len, &o, &r) == PEGO_SYNTAX_ERROR) {
                        runs++;
                        first += p->decided == 1;
                        claimed += p->decided && p->decider.claimed;
                        probing += p->decider.probing;    /* the probes' waste stayed in budget */
                        CU_ASSERT(p->decided != 0);
                        /* counted: the profiled program counts the error, a deciding run finds it */
                        o.count_stats = 1;
                        CU_ASSERT_EQUAL(pego_parse(p, in, len, &o, &r), PEGO_SYNTAX_ERROR);
                        if (m == 0) counted_decided += p->decided != 0 && rt_parse_counts(p) != NULL;
                        o.count_stats = 0;
                    }
                    compare(p, &c, (const unsigned char *)in, len, &o, 0, &t);
                }
            }
            in[at] = saved;
        }
    }
    fprintf(stderr, "\n  %d syntax errors, %d decided by the first deciding run, %d with probes to the end, "
            "%d skipping iterations claimed by the fast run, "
            "%d counted and decided with the default memo policy, %lu differences ",
            runs, first, probing, claimed, counted_decided, t.differences);
    CU_ASSERT(runs >= 30);
    CU_ASSERT(counted_decided * 2 >= runs);
    CU_ASSERT(first >= runs - 4);
    CU_ASSERT(claimed >= runs - 4);
    CU_ASSERT(probing >= runs - 4);
    CU_ASSERT_EQUAL(t.differences, 0);
    totals.comparisons += t.comparisons;
    totals.differences += t.differences;
    free(in);
    pego_parser_free(p);
    pego_grammar_free(g);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) return 1;
    CU_pSuite s = CU_add_suite("fast program", NULL, NULL);
    CU_add_test(s, "grammars compile to the fast code they exercise", test_compile);
    CU_add_test(s, "the profiled program's Pratt machine takes the lines that call nothing or a span", test_profiled_pratt_lines);
    CU_add_test(s, "the profiled program matches a call of one byte test or span in one instruction", test_profiled_counted_calls);
    CU_add_test(s, "alternatives that begin alike share those elements", test_shared_prefix);
    CU_add_test(s, "a jump table of calls is compiled into its call sites", test_dispatcher);
    CU_add_test(s, "a known case", test_known_case);
    CU_add_test(s, "fast equals reference on listed inputs", test_listed_inputs);
    CU_add_test(s, "fast equals reference on random and mutated inputs", test_generated_inputs);
    CU_add_test(s, "fast equals reference on random grammars", test_random_grammars);
    CU_add_test(s, "fast equals reference on long inputs of random grammars", test_long_inputs);
    CU_add_test(s, "an overshoot bounds what matched calls record past their end", test_overshoot);
    CU_add_test(s, "an overshoot bounds them where the analysis looks into the rules called", test_overshoot_calls);
    CU_add_test(s, "fast equals reference near the nesting limit", test_nesting_limit);
    CU_add_test(s, "fast equals reference on deep nests, in less stack", test_deep_nesting);
    CU_add_test(s, "profiled counts equal pego profile's on fixtures and benchmark inputs", test_fixture_counts);
    CU_add_test(s, "syntax errors in a large input, decided by the deciding run", test_large_errors);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    printf("fast program: %lu comparisons, %lu differences; %lu matches and %lu syntax errors counted by the "
           "profiled program\n", totals.comparisons, totals.differences, totals.counted, counted_errors);
    /* the counts must have been compared, on many matches and errors */
    return failed || totals.counted < 1000 || counted_errors < 1000 ? 1 : 0;
}
