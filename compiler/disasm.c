/* The disassembler behind `pego compile -S`: every rule's static facts, then the
 * instructions of its valued and value-free bodies with operands resolved to
 * literals, classes, rule names and jump targets, and the grammar position each
 * instruction came from. */
#include "program.h"
#include "../vm/action.h"

static const char *op_names[] = {
#define VM_NAME(name, fmt, doc) #name,
    VM_OPCODES(VM_NAME)
#undef VM_NAME
};
static const char *op_formats[] = {
#define VM_FMT(name, fmt, doc) fmt,
    VM_OPCODES(VM_FMT)
#undef VM_FMT
};

static const char *action_op_names[] = {
#define AC_NAME(name, doc) #name,
    VM_ACTION_OPS(AC_NAME)
#undef AC_NAME
};

/* The action programs: each instruction with its operands (a, b, i) as they are. */
static void actions(const pego_grammar *g, rt_buf *b)
{
    for (int a = 0; a < g->nactions; a++) {
        const cc_action *act = &g->actions[a];
        rt_buf_printf(b, "\n%s %d of rule %s, %u slots:\n", act->predicate ? "predicate" : "action", a,
                      g->rules[act->rule].name, (unsigned)act->nslots);
        for (uint32_t at = act->code;; at++) {
            const cc_aop *in = &g->acode[at];
            rt_buf_printf(b, "%6u  %s", (unsigned)at, action_op_names[in->op]);
            if (in->op == AC_STR || in->op == AC_VAR) rt_buf_printf(b, " \"%.*s\"", (int)in->b, g->atext + in->a);
            else if (in->op == AC_INT) rt_buf_printf(b, " %lld", (long long)in->i);
            else if (in->op == AC_CAP || in->op == AC_CAPOF || in->op == AC_FIELD)
                rt_buf_printf(b, " %s", in->a >= 0 ? g->labels[in->a] : "(no label)");
            else if (in->op == AC_NEW) rt_buf_printf(b, " %s, %d fields", g->atext + (uint32_t)(in->i >> 32), in->b);
            else if (in->op != AC_END && in->op != AC_TEST) rt_buf_printf(b, " %d %d", in->a, in->b);
            rt_buf_addc(b, '\n');
            if (in->op == AC_END || in->op == AC_TEST) break;
        }
    }
}

static void flags(rt_buf *b, uint32_t f)
{
    static const char *names[] = { "nullable", "nofail", "cyclic", "leader", "memo", "transient",
                                   "plain", "captures", "twin", "deferrable", "stream", "reaches-cycle" };
    int any = 0;
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (f & (1u << i)) { rt_buf_printf(b, "%s%s", any ? " " : "", names[i]); any = 1; }
    if (!any) rt_buf_adds(b, "-");
}

static void byte_char(rt_buf *b, unsigned c)
{
    if (c > 0x20 && c < 0x7f && c != '\\' && c != '-' && c != ']') rt_buf_addc(b, (char)c);
    else rt_buf_printf(b, "\\x%02x", c);
}

/* The rules of chain k (cc_chain), and the level it is compiled in at unless
 * level < 0 (a PTAIL's chain). */
static void chain(rt_buf *b, const pego_grammar *g, int32_t k, int32_t level)
{
    const cc_chain *c = &g->chains[k];
    for (uint32_t i = 0; i < c->n; i++) rt_buf_printf(b, " %s", g->rules[g->chain_rules[c->first + i]].name);
    if (level >= 0) rt_buf_printf(b, " (level %d)", level);
}

/* What counting site k stands for (cc_site). */
static void site(rt_buf *b, const pego_grammar *g, int32_t k)
{
    const cc_site *site = &g->sites[k];
    rt_buf_printf(b, " site %d:", k);
    for (uint32_t i = 0; i < site->n; i++) {
        const cc_site_call *c = &g->site_calls[site->first + i];
        rt_buf_printf(b, " %s", g->rules[c->rule].name);
        if (c->matched) rt_buf_printf(b, " %u matched", (unsigned)c->matched);
        if (c->failed) rt_buf_printf(b, " %u failed", (unsigned)c->failed);
        if (i + 1 < site->n) rt_buf_addc(b, ',');
    }
}

/* A byte set as ranges: [\x09-\x0a,0-9]. */
static void byteset(rt_buf *b, const cc_byteset *set)
{
    rt_buf_addc(b, '[');
    for (unsigned c = 0; c < 256;) {
        if (!set->in[c]) { c++; continue; }
        unsigned hi = c;
        while (hi + 1 < 256 && set->in[hi + 1]) hi++;
        byte_char(b, c);
        if (hi > c) { rt_buf_addc(b, '-'); byte_char(b, hi); }
        c = hi + 1;
    }
    rt_buf_addc(b, ']');
}

/* A dispatch test's calls skipped with the alternative (TEST, TESTCHAR, TESTLIT). */
static void skipped_calls(rt_buf *b, const vm_ins *in)
{
    if (in->d) rt_buf_printf(b, " (skips %u call%s)", (unsigned)in->d, in->d == 1 ? "" : "s");
}

static void operands(const pego_grammar *g, rt_buf *b, uint32_t at)
{
    const vm_ins *in = &g->code[at];
    const char *fmt = op_formats[in->op];
    switch (fmt[0]) {
    case 'L': rt_buf_printf(b, " %s", g->expects[g->literals[in->a].expect]); break;
    case 'C': rt_buf_printf(b, " %s", g->expects[g->classes[in->a].expect]); break;
    case 'J': rt_buf_printf(b, " -> %u", (unsigned)in->a); break;
    case 'R': {
        int r = in->a % g->nrules;
        rt_buf_printf(b, " %s%s -> %u", g->rules[r].name, in->a >= g->nrules ? " (value-free)" : "",
                      (unsigned)in->b);
        if (in->c) rt_buf_printf(b, " (level %d)", in->c);
        break;
    }
    case 'r':
        rt_buf_printf(b, " %s%s, chain", g->rules[in->a % g->nrules].name, in->a >= g->nrules ? " (value-free)" : "");
        chain(b, g, in->d, -1);
        rt_buf_printf(b, " -> %u", (unsigned)in->c);
        break;
    case 'N':
        if (in->op == OP_RULEEND) rt_buf_printf(b, " %s", g->rules[in->a].name);
        else if (in->op == OP_SUBRET) rt_buf_adds(b, in->a >= 0 ? " label" : "");
        else if (in->op == OP_LIST) rt_buf_adds(b, in->a ? " empty" : "");
        else rt_buf_printf(b, " %d", in->a);
        break;
    case 'P': rt_buf_printf(b, " %s", g->labels[in->a]); break;
    case 'A': rt_buf_printf(b, " %d (%s)", in->a, g->rules[g->actions[in->a].rule].name); break;
    case 'F':
        rt_buf_printf(b, " %d", in->a);
        if (g->actions[in->a].define >= 0) rt_buf_printf(b, " (defines %s)", g->vars[g->actions[in->a].define]);
        if (in->b >= 0) rt_buf_printf(b, " scope loop %d", in->b);
        break;
    case 'E': rt_buf_printf(b, " %s", g->types[in->a].name); break;
    case 'Q':
        site(b, g, in->a);
        break;
    case 'O':
        site(b, g, in->b);
        rt_buf_printf(b, " -> %u; else", (unsigned)in->a);
        if (in->c >= 0) site(b, g, in->c);
        else rt_buf_adds(b, " no site");
        break;
    case 'G':
        rt_buf_printf(b, " %s -> %u", g->rules[in->a % g->nrules].name, (unsigned)in->b);
        break;
    case 'Z':
        chain(b, g, in->a, in->b);
        if (cc_opens_inline_call(in->op) && g->chains[in->a].fail_site >= 0) {
            rt_buf_adds(b, ", failing");
            site(b, g, g->chains[in->a].fail_site);
        }
        break;
    case 'S':
        rt_buf_printf(b, " %s {%d,", g->expects[g->classes[in->a].expect], in->b);
        if (in->c >= 0) rt_buf_printf(b, "%d}", in->c); else rt_buf_adds(b, "}");
        break;
    case 'I':
        rt_buf_printf(b, " {%d,", in->b);
        if (in->c >= 0) rt_buf_printf(b, "%d}", in->c); else rt_buf_adds(b, "}");
        rt_buf_printf(b, " exit -> %u", (unsigned)in->a);
        break;
    case 'T':
        rt_buf_printf(b, " %s else -> %u", g->expects[g->classes[in->a].expect], (unsigned)in->b);
        skipped_calls(b, in);
        break;
    case 'K':
        if (in->a >= 0x20 && in->a < 0x7f) rt_buf_printf(b, " '%c'", (char)in->a);
        else rt_buf_printf(b, " 0x%02x", (unsigned)in->a);
        rt_buf_printf(b, " else %s -> %u", g->expects[in->c], (unsigned)in->b);
        skipped_calls(b, in);
        break;
    case 't':
        rt_buf_printf(b, " first of %s else -> %u", g->expects[g->literals[in->a].expect], (unsigned)in->b);
        skipped_calls(b, in);
        break;
    case 'W': rt_buf_printf(b, " loop %u", (unsigned)in->a); break;
    case 'B':
        rt_buf_addc(b, ' ');
        byteset(b, &g->bytesets[in->a]);
        rt_buf_printf(b, " else -> %u", (unsigned)in->b);
        break;
    case 'H':
        rt_buf_addc(b, ' ');
        byte_char(b, (unsigned)in->a);
        break;
    case 'D': {
        /* the targets in address order, each with its bytes */
        const cc_dispatch *d = &g->dispatch[in->a];
        uint32_t prev = 0;
        for (;;) {
            uint32_t next = UINT32_MAX;
            for (unsigned c = 0; c < 256; c++)
                if (d->to[c] > prev && d->to[c] < next) next = d->to[c];
            if (next == UINT32_MAX) break;
            cc_byteset set;
            for (unsigned c = 0; c < 256; c++) set.in[c] = d->to[c] == next;
            rt_buf_addc(b, ' ');
            byteset(b, &set);
            rt_buf_printf(b, " -> %u", (unsigned)next);
            prev = next;
        }
        rt_buf_printf(b, " end -> %u", (unsigned)d->eoi);
        break;
    }
    case 'Y':
        rt_buf_addc(b, ' ');
        byteset(b, &g->bytesets[in->a]);
        break;
    case 'V':
        rt_buf_addc(b, ' ');
        byteset(b, &g->bytesets[in->a]);
        rt_buf_adds(b, " then ");
        byteset(b, &g->bytesets[in->c]);
        rt_buf_printf(b, " else -> %u", (unsigned)in->b);
        break;
    case 'U':
        if (in->a >= 0) { rt_buf_addc(b, ' '); byteset(b, &g->bytesets[in->a]); }
        rt_buf_addc(b, ' ');
        byte_char(b, (unsigned)in->b);
        if (in->c >= 0) { rt_buf_addc(b, ' '); byteset(b, &g->bytesets[in->c]); }
        /* the profiled program's spans that are calls: their POUTs, in place */
        if (in->flags & INS_COUNT) { rt_buf_adds(b, ", counts"); chain(b, g, in[2].a, in[2].b); }
        if (in->flags & INS_COUNT_AFTER) { rt_buf_adds(b, ", counts"); chain(b, g, in[in->d - 1].a, in[in->d - 1].b); }
        break;
    case 'M': rt_buf_printf(b, " \"%s\"", g->expects[in->a]); break;
    case 'X': rt_buf_printf(b, " %s", g->rules[g->pratts[in->a].rule].name); break;
    default: break;
    }
    if (in->flags & INS_VALUE) rt_buf_adds(b, " +value");
    if (in->flags & INS_SCOPE) rt_buf_adds(b, " +scope");
    if (in->flags & INS_DROP) rt_buf_adds(b, " +drop");
    if (in->flags & INS_TAIL) rt_buf_adds(b, " +tail");
    if (in->flags & INS_STREAM) rt_buf_adds(b, " +stream");
    if ((fmt[0] == 'R' || fmt[0] == 'r') && g->call_fail_site && g->call_fail_site[at] >= 0) {
        rt_buf_adds(b, ", failing");
        site(b, g, g->call_fail_site[at]);
    }
    /* the deciding run may skip the iterations claimed by the fast run */
    const cc_rep_link *link = in->op == OP_REP ? cc_rep_link_at(g, at) : NULL;
    if (link) rt_buf_printf(b, ", claims for %u (overshoot %u)", (unsigned)link->ref_rep, (unsigned)link->over);
}

static void body(const pego_grammar *g, rt_buf *b, uint32_t from)
{
    /* A fast body may return before its last instruction (a jump to its RET
     * became a RET): it ends where the next one begins. */
    uint32_t limit = g->ncode;
    int fast = g->has_fast && from >= g->fast_start;
    for (int r = 0; fast && r < g->nrules; r++) {
        const uint32_t starts[] = { g->rules[r].fast_entry, g->rules[r].fast_vf_entry,
                                    g->rules[r].prof_entry, g->rules[r].prof_vf_entry };
        for (int k = 0; k < 4; k++)
            if (starts[k] > from && starts[k] < limit) limit = starts[k];
    }
    for (uint32_t at = from; at < limit; at++) {
        size_t mark = b->len;
        rt_buf_printf(b, "  %5u  %s", (unsigned)at, op_names[g->code[at].op]);
        operands(g, b, at);
        size_t width = b->len - mark;
        if (g->src[at].line > 0) {
            for (; width < 48; width++) rt_buf_addc(b, ' ');
            rt_buf_printf(b, " ; %d:%d", g->src[at].line, g->src[at].col);
        }
        rt_buf_addc(b, '\n');
        /* SUBRET ends a Pratt line in every program */
        if (g->code[at].op == OP_SUBRET || (!fast && (g->code[at].op == OP_RET || g->code[at].op == OP_END))) break;
    }
}

/* The lines of one program's record of a Pratt expression (the reference,
 * fast or profiled program's: which, program). */
static void pratt_lines(const pego_grammar *g, rt_buf *b, const cc_rule *rule, const cc_pratt *pr,
                        const char *program)
{
    static const char *kinds[] = { "prefix", "postfix", "infix left", "infix right", "infix none" };
    if (pr->has_skip) {
        rt_buf_printf(b, "rule %s%s, skip%s:\n", rule->name, program,
                      pr->skip_span >= 0    ? " (a byte span the machine scans itself)"
                      : pr->skip_chain >= 0 ? " (a call of a byte span the machine scans and counts itself)"
                                            : "");
        body(g, b, pr->skip);
    }
    for (int i = 0; i < pr->noperands; i++) {
        rt_buf_printf(b, "rule %s%s, operand %d:\n", rule->name, program, i + 1);
        body(g, b, pr->operands[i]);
        rt_buf_printf(b, "rule %s%s, operand %d, value-free%s:\n", rule->name, program, i + 1,
                      pr->operand_span && pr->operand_span[i] >= 0 ? " (a byte span the machine scans itself)"
                      : pr->operand_chain && pr->operand_chain[i] >= 0
                          ? " (a call of a byte span the machine scans and counts itself)"
                          : "");
        body(g, b, pr->vf_operands[i]);
    }
    for (int k = 0; k < 2; k++) {
        const cc_pratt_op *ops = k ? pr->tail : pr->prefix;
        for (int i = 0; i < (k ? pr->ntail : pr->nprefix); i++) {
            rt_buf_printf(b, "rule %s%s, operator %d (%s, level %d):\n", rule->name, program, ops[i].number,
                          kinds[ops[i].kind], ops[i].level);
            body(g, b, ops[i].code);
            rt_buf_printf(b, "rule %s%s, operator %d, value-free%s:\n", rule->name, program, ops[i].number,
                          ops[i].nlits ? (ops[i].lit_value ? " (literals the machine matches, and makes the value of)"
                                                            : " (literals the machine matches)") : "");
            body(g, b, ops[i].vf_code);
        }
    }
}

void cc_disassemble(const pego_grammar *g, rt_buf *b)
{
    rt_buf_printf(b, "; grammar %s: %d rules, %u instructions\n", g->name, g->nrules, (unsigned)g->ncode);
    rt_buf_adds(b, "start (the VM calls the start rule, returning to 0):\n");
    body(g, b, 0);
    for (int r = 0; r < g->nrules; r++) {
        const cc_rule *rule = &g->rules[r];
        rt_buf_printf(b, "\nrule %s (%d:%d) [", rule->name, rule->line, rule->col);
        flags(b, rule->flags);
        rt_buf_printf(b, "] calls from %d places", rule->callsites);
        if (g->overshoot && g->overshoot[r] != OVERSHOOT_NONE)
            rt_buf_printf(b, ", overshoot %u", (unsigned)g->overshoot[r]);
        rt_buf_addc(b, '\n');
        body(g, b, rule->entry);
        rt_buf_printf(b, "rule %s, value-free:\n", rule->name);
        body(g, b, rule->vf_entry);
        if (g->has_fast) {
            rt_buf_printf(b, "rule %s, fast:\n", rule->name);
            body(g, b, rule->fast_entry);
            rt_buf_printf(b, "rule %s, fast, value-free:\n", rule->name);
            body(g, b, rule->fast_vf_entry);
            rt_buf_printf(b, "rule %s, profiled:\n", rule->name);
            body(g, b, rule->prof_entry);
            rt_buf_printf(b, "rule %s, profiled, value-free:\n", rule->name);
            body(g, b, rule->prof_vf_entry);
        }
        if (rule->pratt < 0) continue;
        pratt_lines(g, b, rule, &g->pratts[rule->pratt], "");
        if (g->has_fast) {
            pratt_lines(g, b, rule, &g->pratts[rule->pratt + g->npratts], ", fast");
            pratt_lines(g, b, rule, &g->pratts[rule->pratt + 2 * g->npratts], ", profiled");
        }
    }
    actions(g, b);
}
