/* The dispatch loop. vm/vm.c compiles it once per variant; a variant is a
 * header that defines the same few names:
 *
 *   vm/variant_reference.h         the reference program (the grammar as written)
 *   vm/variant_fast.h              the fast program, building trees
 *   vm/variant_fast_recognize.h    the fast program, recognition only
 *   vm/variant_profiled.h          the profiled program (the fast program with
 *   vm/variant_profiled_recognize.h  counters), building trees or not
 *   vm/variant_profiled_memory.h   the profiled program counting memory too
 *   vm/variant_probe.h             the probe (the fast program's recognition
 *                                  for one call, measuring how far it reaches)
 *   vm/variant_decide.h            the deciding run (the reference program,
 *                                  standing probes for calls)
 *   vm/variant_examined.h          the reference program marking exactly the
 *                                  input each call examined (documents)
 *   vm/variant_stream.h            the same in a stream parse
 *   vm/variant_element.h           the fast program's tree loop for one
 *                                  element of a stream parse
 *
 * VM_RUN names the function; VALUED says whether it builds values (value stack,
 * capture trail); REFERENCE whether it runs the reference program, with
 * expectations, the examined-input mark, observed calls, Pratt expressions,
 * #error and #recover; PROFILED whether it counts the calls of the reference
 * program (the profiled program); EXPECT, LOOKED and WATCHED record expectations, mark
 * examined input and tell whether calls are observed; FILL_ENTRY fills a new
 * control-stack entry, CALL_FRAME a plain call's frame; TAIL_CALLS lets a call
 * in tail position reuse its caller's frame, FRAME_DEPTH says how many levels
 * of nesting a plain frame stands for; SYNTAX_ERROR is the result of a failed
 * parse; NOTE_PC(at) shows the sampler the instruction running (the profiled
 * program stores at, where a context may change: calls, returns, failures,
 * PIN and POUT, which show the instruction after them, and where a run of
 * input is read: spans, literals, classes, repetitions; the cheap
 * instructions between count for the last one shown, which runs in the same
 * calls), NOTE_MEMORY
 * before every change of the rule running (with --profile-memory, the
 * profiled program gives the tree nodes built so far to the rule that built
 * them); PROBE says whether it is the probe or the element run (it starts
 * at parser.start_pos, runs one call, and stops when its reach gets to
 * parser.probe_cap; its second-call bits begin at memo.seen_base), DECIDE whether it is
 * the deciding run (it asks whether a probe can stand for a call before
 * making it). How instructions are dispatched (computed goto, or a
 * switch) is vm/dispatch.h's choice. STREAM says whether it is the stream
 * loop (the start rule's #stream repetition calls out to vm/stream.c, the
 * input is reloaded after a call out), END_SEEN marks the input examined
 * where a test that succeeds found the end, LOOK_SEEN the text a negative
 * lookahead's expression matched (the reference program marking exactly the
 * input examined, vm/variant_examined.h).
 *
 * The loop keeps the hot cases inline: matching, choices, iterations,
 * lookaheads, plain calls and returns, building values. For the rest it calls
 * out (CALL_OUT): the general call path (vm/call.c), the Pratt machine
 * (vm/pratt.c), #error and #recover (vm/recover.c), actions (vm/action.c). A call out writes the
 * loop's registers to r, calls, reads them back, and does what the function
 * returned (label called_out). */

/* The plain calls made since the statistics were last brought up to date:
 * each is one call and one evaluation. The profiled program keeps none: the
 * statistics of a run it counted come from its counts (count_stats,
 * runtime/parse.c), and a run it did not count is parsed again (JSON's
 * profiled recognition, 47.12 to 46.49 million instructions on 1 MB: the
 * count lived in a vector register). */
#define FLUSH_CALLS() (st->calls += plain_calls, st->evals += plain_calls, plain_calls = 0)

/* The profiled program's counters: the return or the failure of the plain
 * frame e. A counted parse matched, so every plain call ended in one of them:
 * the calls are their sum (rt_parse_counts). Consumed input is counted in
 * bytes, in every unit (docs/report-format.md). */
#define COUNT_RETURN(e) (PROFILED ? (void)(p->counts[(e)->u.call.variant].plain_matched++, \
                                           p->counts[(e)->u.call.variant].consumed += pos - (e)->pos, \
                                           p->sample_top = (e)->u.call.caller) \
                                  : (void)0)
#define COUNT_FAILURE(e) (PROFILED ? (void)(p->counts[(e)->u.call.variant].plain_failed++, \
                                            p->sample_top = (e)->u.call.caller) \
                                   : (void)0)
/* The same for the calls of a frame that a tail call reused (E_TCALL,
 * vm/stack.h): those of the PTAIL's chain, rec (each matched: spans,
 * vm_chain_count; else entered), then the frame's own. The chain's failures
 * count the PTAIL's failing site (cc_chain.fail_site). */
#define TAILED(e) p->chain_counts[(e)->rec]
#define COUNT_TAIL_RETURN(e) (TAILED(e).spans++, TAILED(e).consumed += pos - (e)->lower_pos, COUNT_RETURN(e))
#define COUNT_TAIL_FAILURE(e) (TAILED(e).entered++, COUNT_FAILURE(e))
/* The profiled program's call in tail position (PTAIL, here) from the plain
 * frame e on top, its caller's: the frame stands for the n calls of the
 * PTAIL's chain too (E_TCALL), which saves frames and returns. The sampler
 * reads rec, then kind: volatile stores keep that order. */
#define TAIL_FRAME(e, chain, n) ((e)->lower_pos = pos, (e)->tail_calls = (uint16_t)(n), \
                                 *(volatile uint32_t *)&(e)->rec = (chain), *(volatile uint8_t *)&(e)->kind = E_TCALL)
/* The calls compiled in of the PIN at address in begin here (PIN, and
 * PDEFERPIN for the PIN after it): one more call entered, its start noted. */
#define ENTER_INLINE(in) (NOTE_MEMORY(), NOTE_PC((in) + 1), p->chain_counts[(in)->a].entered++, \
                          p->inline_start[(in)->b] = pos)
/* The calls compiled in of the POUT at address in matched here (POUT, and
 * POUTRET): one more call matched, with the input it consumed. */
#define LEAVE_INLINE(in) (NOTE_MEMORY(), NOTE_PC((in) + 1), p->chain_counts[(in)->a].matched++, \
                          p->chain_counts[(in)->a].consumed += pos - p->inline_start[(in)->b])
/* The profiled program's real call at address at failed (the start rule's
 * call, which returns to 0, is at none): when it is an alternative a jump
 * table picked, the reference program goes on to the alternatives after it,
 * whose calls a counting site counts (grammar.call_fail_site). A statement
 * that only the profiled variants contain (PROFILED_CODE): in the others even
 * dead code changed how the compiler allocated the fast loop's registers
 * (building JSON trees took 0.9% more instructions). */
#define COUNT_FAIL_SITE(at) PROFILED_CODE( \
        if (g->call_fail_site && (at) < g->ncode && g->call_fail_site[at] >= 0) p->site_runs[g->call_fail_site[at]]++;)

/* The profiled program's memoized call of frame e ends (memo_call): it
 * matched at pos (ok) or failed. Its outcome goes to the memo table, as the
 * general path's does (vm/call.c, finish_call), and to its counts. */
#define MEMO_STORE(e, ok) do { \
        rt_memo_entry *m_ = &p->memo.entries[(e)->memo]; \
        vm_count *c_ = &p->counts[(e)->u.call.variant]; \
        m_->flags = ((ok) ? MEMO_OK : 0u) | (p->silent ? MEMO_SILENT : 0u); \
        m_->end = m_->examined = pos; \
        m_->value = (ok) && VALUED && (e)->u.call.variant < nrules ? p->vs[vsn - 1] : VAL_NIL; \
        st->memo_stored++; \
        vm_count_outcome(c_, (ok), (e)->pos, pos); \
        p->sample_top = (e)->u.call.caller; \
    } while (0)

/* A byte span that is a call compiled in (profiled program: PSPAN's, and
 * PUNCT's): PIN, BSPAN and POUT in one, with the chain of out (the PSPAN, or
 * PUNCT's POUT in place). A span matches: it counts a call entered that
 * matched (spans). */
#define SPAN_CALL(set, out) do { \
        vm_chain_count *c_ = &p->chain_counts[(out)->a]; \
        uint32_t from_ = pos; \
        pos = vm_byte_span(s, pos, len, (set)); \
        c_->spans++; \
        c_->consumed += pos - from_; \
    } while (0)

/* The profiled program's plain frame (or memoized call's, kind E_MCALL), which
 * the sampler's signal handler reads (runtime/sampler.c): its kind, variant
 * and caller are stored before sample_top points to it. Volatile stores keep
 * that order for a handler on this thread; a compiler barrier would make the
 * loop reload what it keeps in registers. */
#define SAMPLED_FRAME(e, var, k) (*(volatile uint8_t *)&(e)->kind = (k), \
                               *(volatile uint32_t *)&(e)->u.call.variant = (uint32_t)(var), \
                               *(volatile uint32_t *)&(e)->u.call.caller = p->sample_top, \
                               p->sample_top = esn)

/* The value stack and capture trail, in a variant that has them. */
#define CUR_VS (VALUED ? vsn : 0u)
#define CUR_TN (VALUED ? tn : 0u)
#define SET_VS(x) (VALUED ? (void)(vsn = (x)) : (void)0)
#define SET_TN(x) (VALUED ? (void)(tn = (x)) : (void)0)
#define SET_LB(x) (VALUED ? (void)(list_base = (x)) : (void)0)
/* Recovered errors, in the reference program (the only one that records
 * them); the fast program's kept skips (SKIPEND), which going back before
 * their end undoes (vm_undo_skips). */
#define CUR_REC (REFERENCE ? p->nrec : 0u)
#define SET_REC(x) (REFERENCE ? (void)(p->nrec = (x)) : (void)0)
#define UNDO_SKIPS() (!REFERENCE && pos < p->kept_skip_last ? vm_undo_skips(p, pos) : (void)0)
/* Variables, in the reference program (the only one with predicates): the
 * height of the variable stack that entry e restores. */
#define SET_VARS(e) (REFERENCE ? (void)(p->nvars = p->vmarks[(e) - es]) : (void)0)
/* Back to the state an entry saved. */
#define RESTORE_ENTRY(e) (pos = (e)->pos, SET_VS((e)->vs), SET_TN((e)->trail), SET_REC((e)->rec), SET_VARS(e), \
                          UNDO_SKIPS())

/* Pushes an entry of kind k (FILL_ENTRY saves the state); e points to it. */
#define PUSH_ENTRY(k) do { \
        if (esn == p->capes) { \
            if (vm_grow_entries(p, esn + 1) < 0) goto oom; \
            es = p->es; \
        } \
        e = &es[esn++]; \
        FILL_ENTRY(e, (k)); \
    } while (0)

/* PSPAN, PBYTE, PWORD, PINSPAN, PTAIL, PDEFERPIN, PSPANOUT, POUTRET and
 * PDEFERPINSPAN are the profiled program's only: the
 * other loops have no code for them, their table sends them to PIN's label,
 * which they leave (break), and their switch names them with OP__COUNT.
 * Labels of their own would change how the compiler lays out those loops
 * (the fast program's JSON trees took 0.9% more instructions). */
#ifndef FUSED
#define FUSED 0
#endif
#if PROFILED
#define NOT_PROFILED(...)
/* The fused PSPANOUT, POUTRET and PDEFERPINSPAN have cases of their own
 * (FUSED_CODE) in the profiled recognition loop only (its variant defines
 * FUSED). The profiled tree loops run each as its first instruction, PSPAN,
 * POUT or PDEFER, which leaves the second to run next: with cases of their
 * own, the compiler kept those loops' registers worse (JSON trees took 3.9%
 * more instructions, CSV trees 5.2%). */
#if FUSED
#define FUSED_CODE(...) __VA_ARGS__
#define UNFUSED(...)
#else
#define FUSED_CODE(...)
#define UNFUSED(...) __VA_ARGS__
#define op_PSPANOUT op_PSPAN
#define op_POUTRET op_POUT
#define op_PDEFERPINSPAN op_PDEFER
#endif
#else
#define FUSED_CODE(...)
#define UNFUSED(...)
#define NOT_PROFILED(...) __VA_ARGS__
#define op_PSPAN op_PIN
#define op_PBYTE op_PIN
#define op_PWORD op_PIN
#define op_PINSPAN op_PIN
#define op_PTAIL op_PIN
#define op_PDEFERPIN op_PIN
#define op_PSPANOUT op_PIN
#define op_POUTRET op_PIN
#define op_PDEFERPINSPAN op_PIN
#endif

/* Sets the second-call bit of the deferrable rule with index k at pos, in a
 * loop that is not the probe's (whose bits begin at memo.seen_base): true
 * when it was not set, the rule's first call here (vm_first_call_at, whose
 * arithmetic the loop keeps in its own registers this way). */
#define FIRST_CALL_AT(k) vm_set_bit(p->memo.seen, (size_t)pos * (size_t)g->ndeferrable + (k))

/* The plain path: a frame and a jump to the body, returning to address to.
 * A call in tail position (the fast program marks it INS_TAIL: a RET follows)
 * reuses the caller's plain frame, which then stands for one more level. In
 * the fast program, on a deep stack, the call goes on at pair_call, out of
 * line, where it may share the entry of a plain frame on top (E_CALL2). */
#define PLAIN_CALL(to, body, var, lvl, tail) do { \
        NOTE_MEMORY(); \
        if (TAIL_CALLS && (tail) && (es[esn - 1].kind == E_CALL || es[esn - 1].kind == E_CALL2)) { \
            es[esn - 1].u.call.extra_levels++; \
        } else if (TAIL_CALLS && esn >= PAIR_FROM) { \
            call.ret = (to); \
            call.entry = (body); \
            goto pair_call; \
        } else { \
            PUSH_ENTRY(E_CALL); \
            e->u.call.ret = (to); \
            CALL_FRAME(e, (var), (lvl)); \
        } \
        if (++depth > max_depth) goto too_deep; \
        if (!PROFILED) plain_calls++; \
        ip = code + (body); \
    } while (0)

/* The deciding run: a probe may stand for the call instruction at ip
 * (vm/decide.c); then the call is done, else the instruction makes it. A
 * statement of its own, without do-while: NEXT may be a continue. */
#define DECIDE_CALL() \
    if (DECIDE) { \
        uint32_t end_; \
        int probed_ = vm_decide_call(p, ip, pos, depth, &end_); \
        if (probed_ < 0) goto fail; \
        if (probed_) { \
            pos = end_; \
            ip++; \
            NEXT; \
        } \
    }

/* Hands the call instruction at ip to the general path. */
#define GENERAL_CALL() do { \
        NOTE_MEMORY(); \
        call = (vm_call){ (uint32_t)ip->a, (uint32_t)ip->b, (uint32_t)ip->c, (uint32_t)(ip - code) + 1, \
                          ip->flags & INS_TAIL }; \
        CALL_OUT(vm_call_enter(p, &r, &call)); \
    } while (0)

/* Calls fn (of vm/call.c, vm/pratt.c or vm/recover.c) with the registers in r. */
#define CALL_OUT(fn) do { \
        FLUSH_CALLS(); \
        r = (vm_regs){ ip, pos, esn, CUR_VS, CUR_TN, list_base, depth }; \
        step = (fn); \
        goto called_out; \
    } while (0)
#define RELOAD() (ip = r.ip, pos = r.pos, esn = r.esn, SET_VS(r.vsn), SET_TN(r.tn), SET_LB(r.list_base), \
                  depth = r.depth, es = p->es, STREAM ? (void)(s = (const unsigned char *)p->in.input, len = p->in.len) \
                                                      : (void)0)
/* The start rule's #stream repetition, in a stream parse (vm/stream.c). */
#define STREAM_REP(rep) (STREAM && ((rep)->flags & INS_STREAM) && depth == 1)

#define PUSH_VALUE(v) do { \
        if (vsn == p->capvs && rt_buf_grow((void **)&p->vs, &p->capvs, vsn + 1, sizeof(uint32_t)) < 0) goto oom; \
        p->vs[vsn++] = (v); \
    } while (0)
#define NODE(var, type, start, kids, nkids) do { \
        var = rt_tree_node(&p->tree, (type), (start), pos, (kids), (nkids)); \
        if (!var) goto oom; \
    } while (0)
/* LIT, CLASS, ANY, BYTE marked +value push a Match of what they matched. */
#define PUSH_MATCH(start) do { \
        if (VALUED && (ip->flags & INS_VALUE)) { uint32_t v_; NODE(v_, NODE_MATCH, (start), NULL, 0); PUSH_VALUE(v_); } \
    } while (0)

LOOP_LINKAGE int VM_RUN(pego_parser *p, uint32_t start_variant)
{
    const pego_grammar *g = p->g;
    const vm_ins *code = g->code, *ip = code;
    const unsigned char *s = (const unsigned char *)p->in.input;
    uint32_t len = p->in.len;             /* a stream parse reads more (RELOAD) */
    const uint32_t nrules = (uint32_t)g->nrules;
    pego_stats *st = &p->res.stats;
    /* The registers: the position, the heights of the control stack, value stack
     * and capture trail, where the values of a finished loop begin, the nesting
     * depth and the plain calls not yet counted. */
    uint32_t pos = PROBE ? p->start_pos : 0, esn = 0, vsn = 0, tn = 0, list_base = 0, depth = 0;
    uint64_t plain_calls = 0;
    const uint32_t max_depth = p->max_depth;
    vm_entry *es = p->es;                 /* the control stack, reloaded when it grows */
    const int noplain = p->noplain, defer = p->defer;
    vm_entry *e;
    vm_regs r;                            /* the registers, for a call out */
    vm_call call;                         /* a call for the general path */
    vm_step step;                         /* what a call out returned */
    DISPATCH_TABLE;

    /* Lookahead nesting counts in the fast program too (which records no
     * expectations): a memo entry made inside a lookahead is not used outside one. */
    p->silent = 0;
    p->ngf = 0;
    p->npf = 0;
    p->nrec = 0;
    p->nheld = 0;
    p->hw = 0;
    p->nvars = 0;
    p->gave_up = 0;
    p->kept_skip_first = p->kept_skip_last = 0;
    vm_env_reset(p);
    if (PROFILED || REFERENCE) p->sample_ip = NULL;  /* nothing from an earlier run */
    rt_buf_reset(&p->strings);
    PUSH_ENTRY(E_BOTTOM);
    {
        /* the start rule, called like any rule, returning to address 0 (EOI,
         * then END); the probe's call, to address 1 (END: it ends anywhere) */
        const cc_rule *rule = &g->rules[start_variant % nrules];
        int vf = start_variant >= nrules;
        uint32_t entry = PROFILED ? (vf ? rule->prof_vf_entry : rule->prof_entry)
                       : p->fast  ? (vf ? rule->fast_vf_entry : rule->fast_entry)
                                  : (vf ? rule->vf_entry : rule->entry);
        call = (vm_call){ start_variant, entry, 0, PROBE ? 1u : 0u, 0 };
        if ((rule->flags & RULE_LEADER) || ((rule->flags & RULE_MEMO) && !(rule->flags & RULE_TRANSIENT)) || noplain)
            CALL_OUT(vm_call_enter(p, &r, &call));
        goto plain_call;
    }

    for (;;) {
        switch (DISPATCH_OP) {
        CASE(END):
            if (STREAM && !p->stream.eof && !p->stream.done) CALL_OUT(vm_stream_end(p, &r, 0));
            if (!REFERENCE && p->kept_skip_first) {
                /* a match with an error recovered: the reference program's (SKIPEND) */
                FLUSH_CALLS();
                p->gave_up = 1;
                return SYNTAX_ERROR();
            }
            p->res.value = CUR_VS ? p->vs[CUR_VS - 1] & ~VAL_CALLED : VAL_NIL;
            if (PROBE) {
                p->probe_end = pos;
                if (pos >= p->probe_cap) goto capped;
            }
            FLUSH_CALLS();
            return PEGO_OK;

        /* ---- matching ---- */
        CASE(LIT): {
            NOTE_PC(ip);
            const cc_literal *l = &g->literals[ip->a];
            uint32_t start = pos, end;
            /* the first byte decides most comparisons: test it before the rest */
            if (len - pos >= l->len && (l->len == 0 || (s[pos] == (unsigned char)l->bytes[0] &&
                                                         memcmp(s + pos + 1, l->bytes + 1, l->len - 1) == 0)))
                end = pos + l->len;
            else if (!l->fffd || (end = literal_slow(l, s, pos, len)) == UINT32_MAX) {
                EXPECT(pos, l->expect);
                if (WATCHED) {                         /* examined: up to the first differing byte */
                    uint32_t k = 0;
                    while (k < l->len && pos + k < len && s[pos + k] == (unsigned char)l->bytes[k]) k++;
                    /* (or character, with U+FFFD: as literal_slow compares) */
                    LOOKED(l->fffd ? literal_slow_examined(l, s, pos, len) : pos + k + 1);
                }
                goto fail;
            }
            pos = end;
            PUSH_MATCH(start);
            ip++;
            NEXT;
        }
        CASE(CLASS): {
            NOTE_PC(ip);
            const cc_class *c = &g->classes[ip->a];
            uint32_t w;
            if (pos >= len || !(w = class_at(c, s, pos, len))) {
                EXPECT(pos, c->expect);
                LOOKED(pos + 1);
                goto fail;
            }
            pos += w;
            PUSH_MATCH(pos - w);
            ip++;
            NEXT;
        }
        CASE(ANY): {
            if (pos >= len) { EXPECT(pos, EXP_ANY); END_SEEN(pos + 1); goto fail; }
            uint32_t start = pos, ch;
            pos += s[pos] < 0x80 ? 1 : (uint32_t)rt_unicode_decode(s + pos, len - pos, &ch);
            PUSH_MATCH(start);
            ip++;
            NEXT;
        }
        CASE(SPAN): {
            NOTE_PC(ip);
            const cc_class *c = &g->classes[ip->a];
            int64_t count = 0, max = ip->c;
            uint32_t w;
            while (max < 0 || count < max) {
                if (pos >= len || !(w = class_at(c, s, pos, len))) {
                    EXPECT(pos, c->expect);
                    LOOKED(pos + 1);
                    break;
                }
                pos += w;
                count++;
            }
            if (count < ip->b) goto fail;
            ip++;
            NEXT;
        }
        CASE(BOI):
            if (pos != 0) { EXPECT(pos, EXP_BOI); goto fail; }
            ip++;
            NEXT;
        CASE(EOI):
            if (pos != len) { EXPECT(pos, EXP_EOI); LOOKED(pos + 1); goto fail; }
            END_SEEN(pos + 1);
            ip++;
            NEXT;
        CASE(BOL):
            if (pos != 0 && s[pos - 1] != '\n') { EXPECT(pos, EXP_BOL); goto fail; }
            ip++;
            NEXT;
        CASE(EOL):
            if (pos != len && s[pos] != '\n' && s[pos] != '\r') { EXPECT(pos, EXP_EOL); LOOKED(pos + 1); goto fail; }
            END_SEEN(pos + 1);                  /* the end, or the line end it saw */
            ip++;
            NEXT;
        CASE(FAIL):
            goto fail;
        CASE(TEST): {
            const cc_class *c = &g->classes[ip->a];
            if ((pos >= len || !class_at(c, s, pos, len)) && depth + ip->d <= max_depth) {
                EXPECT(pos, c->expect);
                LOOKED(pos + 1);
                ip = code + ip->b;
                NEXT;
            }
            ip++;
            NEXT;
        }
        CASE(TESTCHAR):
            if ((pos >= len || s[pos] != (unsigned char)ip->a) && depth + ip->d <= max_depth) {
                EXPECT(pos, (uint32_t)ip->c);
                LOOKED(pos + 1);
                ip = code + ip->b;
                NEXT;
            }
            ip++;
            NEXT;
        CASE(TESTLIT): {
            const cc_literal *l = &g->literals[ip->a];
            if (!literal_first_at(l, s, pos, len) && depth + ip->d <= max_depth) {
                EXPECT(pos, l->expect);                /* as LIT records its failure */
                if (WATCHED) {
                    uint32_t k = 0;
                    while (k < l->len && pos + k < len && s[pos + k] == (unsigned char)l->bytes[k]) k++;
                    LOOKED(pos + k + 1);
                }
                ip = code + ip->b;
                NEXT;
            }
            ip++;
            NEXT;
        }

        /* ---- the fast program's byte instructions ---- */
        CASE(BTEST):
            if (pos >= len || !g->bytesets[ip->a].in[s[pos]]) {
                ip = code + ip->b;
                NEXT;
            }
            ip++;
            NEXT;
        CASE(BSPAN): {
            NOTE_PC(ip);
            const uint8_t *set = g->bytesets[ip->a].in;
            uint32_t from = pos;
            pos = vm_byte_span(s, pos, len, set);
            FAULT_SHORT_SPAN(from);
            ip++;
            NEXT;
        }
        CASE(BSPAN1): {
            NOTE_PC(ip);
            const uint8_t *set = g->bytesets[ip->a].in;
            if (pos >= len || !set[s[pos]]) goto fail;
            pos++;
            pos = vm_byte_span(s, pos, len, set);
            ip++;
            NEXT;
        }
        CASE(SPANTEST): {
            NOTE_PC(ip);
            const uint8_t *set = g->bytesets[ip->a].in;
            if (PROFILED && (ip->flags & INS_COUNT)) {
                /* a counting site per character: the ASCII bytes (1 in the set) as
                 * the fast program spans them, then, from a byte from 0x80, characters */
                uint32_t from = pos;
                while (pos < len && set[s[pos]] == 1) pos++;
                p->site_runs[ip->d] += pos - from;
                if (pos < len && set[s[pos]]) pos = vm_span_characters(p, set, pos, &p->site_runs[ip->d]);
            } else {
                pos = vm_byte_span(s, pos, len, set);
            }
            if (pos >= len || !g->bytesets[ip->c].in[s[pos]]) {
                ip = code + ip->b;
                NEXT;
            }
            ip++;
            NEXT;
        }
        CASE(BYTE):
            if (pos >= len || !g->bytesets[ip->a].in[s[pos]]) goto fail;
            pos++;
            PUSH_MATCH(pos - 1);
            ip++;
            NEXT;
        CASE(BOPT):
            if (pos < len && g->bytesets[ip->a].in[s[pos]]) pos++;
            ip++;
            NEXT;
        CASE(PUNCT):
            NOTE_PC(ip);
            if (ip->a >= 0) {
                const uint8_t *set = g->bytesets[ip->a].in;
                if (PROFILED && (ip->flags & INS_COUNT)) SPAN_CALL(set, ip + 2);
                else pos = vm_byte_span(s, pos, len, set);
            }
            if (pos >= len || s[pos] != (unsigned char)ip->b) goto fail;
            pos++;
            if (ip->c >= 0) {
                const uint8_t *set = g->bytesets[ip->c].in;
                if (PROFILED && (ip->flags & INS_COUNT_AFTER)) SPAN_CALL(set, ip + ip->d - 1);
                else pos = vm_byte_span(s, pos, len, set);
            }
            ip += ip->d;
            NEXT;
        CASE(PUNCT2): {
            /* PUNCT with both spans calls of one chain: two calls that
             * matched, consuming all but the byte; when the byte does not
             * match, the first span was a call that matched */
            if (!PROFILED) break;
            NOTE_PC(ip);
            const uint8_t *set = g->bytesets[ip->a].in;
            uint32_t from = pos;
            vm_chain_count *c = &p->chain_counts[ip[2].a];
            pos = vm_byte_span(s, pos, len, set);
            if (pos >= len || s[pos] != (unsigned char)ip->b) {
                c->spans++;
                c->consumed += pos - from;
                goto fail;
            }
            pos++;
            set = g->bytesets[ip->c].in;
            pos = vm_byte_span(s, pos, len, set);
            c->spans += 2;
            c->consumed += pos - from - 1;
            ip += ip->d;
            NEXT;
        }
        CASE(DISPATCH): {
            const cc_dispatch *d = &g->dispatch[ip->a];
            ip = code + (pos < len ? d->to[s[pos]] : d->eoi);
            NEXT;
        }
        CASE(CHAR):
            if (pos >= len || s[pos] != (unsigned char)ip->a) goto fail;
            pos++;
            ip++;
            NEXT;
        CASE(CHARV): {
            if (!VALUED) break;
            if (pos >= len || s[pos] != (unsigned char)ip->a) goto fail;
            uint32_t v;
            pos++;
            NODE(v, NODE_MATCH, pos - 1, NULL, 0);
            PUSH_VALUE(v);
            ip++;
            NEXT;
        }

        /* ---- the profiled program's counters ---- */
        CASE(PCOUNT):
            if (!PROFILED) break;
            p->site_runs[ip->a]++;
            ip++;
            NEXT;
        UNFUSED(case OP_PDEFERPINSPAN:)
        CASE(PDEFER):
            /* a deferrable rule compiled in: its first call at a position runs
             * its body, at b, like the fast program's first calls (CALLG); a
             * later one is the real call after PDEFER, which the memo table
             * decides (vm/call.c) */
            if (!PROFILED) break;
            if (defer && FIRST_CALL_AT(ip->d)) {
                ip += 3;                /* b: past the real call and its jump */
                NEXT;
            }
            ip++;
            if (defer) goto memo_call;
            NEXT;
        CASE(PDSKIP):
            /* a byte test skipped a call of a deferrable rule: its first call at
             * a position counts with the site; a later one is made (next) */
            if (!PROFILED) break;
            if (defer && FIRST_CALL_AT(ip->d)) {
                p->site_runs[ip->b]++;
                ip = code + ip->a;
                NEXT;
            }
            if (ip->c >= 0) p->site_runs[ip->c]++;
            ip++;
            NEXT;
        CASE(PIN):
            /* calls compiled in: those that do not match failed; the sampler
             * tells they run from the instruction (grammar.inline_at) */
            if (!PROFILED) break;
            ENTER_INLINE(ip);
            ip++;
            NEXT;
        FUSED_CODE(
        CASE(PSPANOUT):
            /* PSPAN whose skip lands on a POUT (fuse_counted_calls): it goes
             * on into that POUT */
            NOTE_PC(ip);
            SPAN_CALL(g->bytesets[ip[1].a].in, ip);
            ip += 3;
            FALL_THROUGH;)
        UNFUSED(case OP_POUTRET:)
        CASE(POUT):
            if (!PROFILED) break;
            LEAVE_INLINE(ip);
            ip++;
            NEXT;

        /* ---- choices, repetitions, lookaheads, cut ---- */
        CASE(CHOICE):
            PUSH_ENTRY(E_CHOICE);
            e->u.choice.alt = (uint32_t)ip->a;
            ip++;
            NEXT;
        CASE(COMMIT):
            esn--;
            ip = code + ip->a;
            NEXT;
        CASE(REP):
            NOTE_PC(ip);
            PUSH_ENTRY(E_ITER);
            e->u.iter.rep = (uint32_t)(ip - code);
            e->u.iter.count = 0;
            e->u.iter.list_base = CUR_VS;
            /* the fast and profiled programs keep where the loop began in the
             * field of recovered errors, which they do not count: the
             * deciding run's claims (vm/decide.c); it skips the iterations
             * that such an entry left in a failed run says matched */
            if (!REFERENCE) e->rec = pos;
            if (DECIDE && p->nclaims) {
                uint32_t to, count;
                if (vm_decide_claim(p, (uint32_t)(ip - code), pos, &to, &count)) {
                    e->pos = pos = to;
                    e->u.iter.count = count;
                }
            }
            if (STREAM_REP(ip)) CALL_OUT(vm_stream_begin(p, &r));
            ip++;
            NEXT;
        CASE(REPNEXT): {
            const vm_ins *rep = code + ip->a;
            e = &es[esn - 1];
            uint32_t count = e->u.iter.count + 1;
            if (VALUED && (ip->flags & (INS_SCOPE | INS_DROP)) && tn != e->trail) {
                /* the iteration's captures: with captures the value is never nil */
                if (ip->flags & INS_SCOPE) {
                    uint32_t v = vm_apply_fields(p, p->vs[vsn - 1], e->trail, tn, e->pos, pos);
                    if (!v) goto oom;
                    p->vs[vsn - 1] = v;
                }
                tn = e->trail;
            }
            if (STREAM_REP(rep)) CALL_OUT(vm_stream_element(p, &r));
            /* the probe's reach: without a failure to note it, a long match
             * would run on past the cap (vm/decide.c) */
            if (PROBE) LOOKED(pos);
            if (pos == e->pos || (rep->c >= 0 && count >= (uint32_t)rep->c)) {
                esn--;
                if (count < (uint32_t)rep->b) goto fail;
                SET_LB(e->u.iter.list_base);
                ip = code + rep->a;
                NEXT;
            }
            e->pos = pos;
            __atomic_store_n(&p->progress, pos, __ATOMIC_RELAXED);
            e->vs = CUR_VS;
            e->trail = CUR_TN;
            if (REFERENCE) {
                e->rec = CUR_REC;
                p->vmarks[esn - 1] = p->nvars;    /* an iteration's definitions stay */
            }
            e->u.iter.count = count;
            e->cut = 0;
            ip = rep + 1;
            NEXT;
        }
        CASE(ITEREXIT): {
            /* the guard of an iteration failed where the iteration would begin */
            const vm_ins *rep = code + ip->a;
            e = &es[--esn];
            if (e->u.iter.count < (uint32_t)rep->b) goto fail;
            SET_LB(e->u.iter.list_base);
            ip = code + rep->a;
            NEXT;
        }
        CASE(LOOK):
            PUSH_ENTRY(E_LOOK);
            p->silent++;
            ip++;
            NEXT;
        CASE(NLOOK):
            PUSH_ENTRY(E_NLOOK);
            e->u.choice.alt = (uint32_t)ip->a;
            p->silent++;
            ip++;
            NEXT;
        CASE(LOOKEND):
            LOOKED(pos);
            e = &es[--esn];
            p->silent--;
            pos = e->pos;
            ip++;
            NEXT;
        CASE(LOOKFAIL):
            if (PROBE) LOOKED(pos);                /* the probe's reach: before pos goes back */
            LOOK_SEEN(pos);                        /* what the expression matched was examined */
            e = &es[--esn];
            p->silent--;
            pos = e->pos;
            SET_VS(e->vs);
            SET_TN(e->trail);
            goto fail;
        CASE(CUT):
            /* the innermost construct is the top entry; a lookahead or a call
             * boundary there means the cut commits nothing outside it */
            for (uint32_t i = esn; i-- > 0;) {
                e = &es[i];
                if (e->kind == E_LABEL || e->kind == E_RECOVER || e->kind == E_SKIP) continue;
                if (e->kind == E_CHOICE || e->kind == E_ITER || e->kind == E_SUB) e->cut = 1;
                break;
            }
            ip++;
            NEXT;

        /* ---- rule calls ---- */
        CASE(CALL):
            NOTE_PC(ip);
            DECIDE_CALL();
            if (!noplain) {
                PLAIN_CALL((uint32_t)(ip - code) + 1, ip->b, ip->a, ip->c, ip->flags & INS_TAIL);
                NEXT;
            }
            GENERAL_CALL();
        CASE(CALLG):
            NOTE_PC(ip);
            DECIDE_CALL();
            if ((ip->flags & INS_DEFER) && defer) {
                /* the fast program's deferrable rule, default policy, unobserved:
                 * its first call at a position is a plain call (vm/call.c). Past
                 * every position of such a call so far, it is a first call
                 * without a test, and its bit stays clear: a later call there
                 * is plain once more, and the one after it is memoized (one
                 * evaluation more, never repeated). The profiled program keeps
                 * the bits exact: its counts are the reference program's. Else
                 * the bit's test is written out here, where the compiler keeps
                 * the fast loop's registers best (vm_first_call_at) */
                if (!PROFILED && pos >= p->memo.seen_fresh) {
                    p->memo.seen_fresh = pos + 1;
                    PLAIN_CALL((uint32_t)(ip - code) + 1, ip->b, ip->a, ip->c, ip->flags & INS_TAIL);
                    NEXT;
                }
                size_t bit = (size_t)(PROBE ? pos - p->memo.seen_base : pos) * (size_t)g->ndeferrable + ip->d;
                uint64_t mask = 1ull << (bit & 63), *word = &p->memo.seen[bit >> 6];
                if (!(*word & mask)) {
                    *word |= mask;
                    PLAIN_CALL((uint32_t)(ip - code) + 1, ip->b, ip->a, ip->c, ip->flags & INS_TAIL);
                    NEXT;
                }
                if (PROFILED) goto memo_call;
            }
            GENERAL_CALL();
        FUSED_CODE(
        CASE(POUTRET):
            /* POUT before a RET (fuse_counted_calls): it goes on into the RET */
            LEAVE_INLINE(ip);
            ip++;
            FALL_THROUGH;)
        CASE(RET):
            NOTE_PC(ip);
            NOTE_MEMORY();
            e = &es[esn - 1];
            if (e->kind != E_CALL) {
                if (e->kind == E_GCALL) CALL_OUT(vm_call_return(p, &r));
                if (PROFILED && e->kind == E_MCALL) {
                    MEMO_STORE(e, 1);
                    esn--;
                    depth--;
                    ip = code + e->u.call.ret;
                    NEXT;
                }
                PROFILED_CODE(
                if (e->kind == E_TCALL) {
                    COUNT_TAIL_RETURN(e);
                    esn--;
                    depth -= 1u + e->tail_calls;
                    ip = code + e->u.call.ret;
                    NEXT;
                })
                if (!TAIL_CALLS) goto corrupt;
                /* E_CALL2: the inner frame returns, the caller's takes its fields again */
                depth -= FRAME_DEPTH(e);
                ip = code + e->u.call.ret;
                e->kind = E_CALL;
                e->pos = e->lower_pos;
                if (VALUED) e->trail = e->lower_trail;
                e->u.call.ret = e->u.call.lower_ret;
                e->u.call.extra_levels = e->lower_extra;
                NEXT;
            }
            COUNT_RETURN(e);
            SET_VARS(e);                /* the callee's definitions end with it */
            esn--;
            depth -= FRAME_DEPTH(e);
            ip = code + e->u.call.ret;
            NEXT;

        /* ---- building values ---- */
        CASE(RULEEND): {
            if (!VALUED) break;
            e = &es[esn - 1];
            uint32_t v = p->vs[vsn - 1];
            if (tn != e->trail) {
                v = vm_apply_fields(p, v, e->trail, tn, e->pos, pos);
                if (!v) goto oom;
                tn = e->trail;
            }
            if (v != VAL_NIL && !(v & VAL_CALLED)) {
                pego_node *n = &p->tree.nodes[v - 1];
                if (rt_tree_node_label(n) < 0) rt_tree_node_set_label(n, ip->a);
            }
            p->vs[vsn - 1] = v == VAL_NIL ? v : (v | VAL_CALLED);
            ip++;
            NEXT;
        }
        CASE(ACTION):
            if (!VALUED) break;
            CALL_OUT(vm_action_run(p, &r));
        CASE(TERMNODE): {
            if (!VALUED) break;
            uint32_t v;
            NODE(v, NODE_TERMINAL, p->vs[vsn - 1], NULL, 0);   /* typed by the rule that labels it */
            p->vs[vsn - 1] = v;
            ip++;
            NEXT;
        }
        CASE(PUSHPOS):
        CASE(LISTOPEN):
            if (!VALUED) break;
            PUSH_VALUE(pos);
            ip++;
            NEXT;
        CASE(SEQ): {
            if (!VALUED) break;
            uint32_t n = (uint32_t)ip->a, v;
            NODE(v, NODE_SEQ, p->vs[vsn - n - 1], p->vs + vsn - n, n);
            vsn -= n + 1;
            p->vs[vsn++] = v;
            ip++;
            NEXT;
        }
        CASE(MATCH): {
            if (!VALUED) break;
            uint32_t v;
            NODE(v, NODE_MATCH, p->vs[vsn - 1], NULL, 0);
            p->vs[vsn - 1] = v;
            ip++;
            NEXT;
        }
        CASE(TOP): {
            if (!VALUED) break;
            uint32_t v;
            NODE(v, NODE_MATCH, pos, NULL, 0);
            PUSH_VALUE(v);
            ip++;
            NEXT;
        }
        CASE(NIL):
            if (!VALUED) break;
            PUSH_VALUE(VAL_NIL);
            ip++;
            NEXT;
        CASE(LIST): {
            if (!VALUED) break;
            uint32_t v, base = ip->a ? vsn : list_base;     /* a: no iteration (a{0,0}) */
            NODE(v, NODE_LIST, p->vs[base - 1], p->vs + base, vsn - base);
            vsn = base - 1;
            p->vs[vsn++] = v;
            ip++;
            NEXT;
        }
        CASE(CAPTURE):
            if (!VALUED) break;
            if (tn == p->captrail && rt_buf_grow((void **)&p->trail, &p->captrail, tn + 1, sizeof(vm_capture)) < 0)
                goto oom;
            p->trail[tn++] = (vm_capture){ (uint32_t)ip->a, p->vs[vsn - 1] };
            ip++;
            NEXT;
        CASE(POP):
            if (!VALUED) break;
            vsn--;
            ip++;
            NEXT;
        CASE(JMP):
            ip = code + ip->a;
            NEXT;

        /* ---- cold instructions: #error and #recover, Pratt expressions,
         * predicates. The fast program runs #recover's skip where its
         * expression fails; when the skip matches, a recovery (SKIPEND). ---- */
        CASE(LABEL):
            if (!REFERENCE) break;
            CALL_OUT(vm_recover_open(p, &r, E_LABEL));
        CASE(RECOVER):
            if (!REFERENCE) {
                PUSH_ENTRY(E_RECOVER);
                e->u.window.target = (uint32_t)ip->a;
                ip++;
                NEXT;
            }
            CALL_OUT(vm_recover_open(p, &r, E_RECOVER));
        CASE(LABELEND):
        CASE(RECOVEREND):
            if (!REFERENCE) {
                esn--;
                ip = code + ip->a;
                NEXT;
            }
            CALL_OUT(vm_recover_close(p, &r));
        CASE(SKIPEND):
            if (!REFERENCE) {
                /* The fast program records no error. It goes on past a
                 * recovery as the reference program does, with an Error node
                 * of no message for a value, where only a failure that goes
                 * back before the skip's end can undo the recovery
                 * (vm_fast_recovery_goes_on): every entry then on the stack
                 * began before the skip, every later one at or past its end.
                 * Such a failure undoes it (RESTORE_ENTRY); a memoized call
                 * that keeps one is not stored (vm/call.c, finish_fast_call);
                 * a match that keeps one is the reference program's (END).
                 * Elsewhere, and in a probe, whose outcome stands for a call,
                 * it gives the parse up to the reference program here. */
                if (pos == es[esn - 1].pos) goto fail;   /* an empty skip is no recovery */
                if (PROBE || !vm_fast_recovery_goes_on(p, esn, VALUED && (ip->flags & INS_VALUE))) {
                    FLUSH_CALLS();
                    p->gave_up = 1;
                    return SYNTAX_ERROR();
                }
                if (!p->kept_skip_first) p->kept_skip_first = pos;
                p->kept_skip_last = pos;
                e = &es[--esn];
                if (VALUED && (ip->flags & INS_VALUE)) {
                    uint32_t v;
                    NODE(v, NODE_ERROR, e->pos, NULL, 0);
                    PUSH_VALUE(v);
                }
                ip++;
                NEXT;
            }
            CALL_OUT(vm_recover_skip_end(p, &r));
        CASE(PSTART):
            CALL_OUT(vm_pratt_start(p, &r));
        CASE(PRATT):
            CALL_OUT(PROFILED ? vm_pratt_run_profiled(p, &r) : PROBE ? vm_pratt_run_probe(p, &r) : vm_pratt_run(p, &r));
        CASE(SUBRET):
            CALL_OUT(vm_pratt_line_matched(p, &r));
        CASE(PRED):
            if (!REFERENCE) break;
            CALL_OUT(vm_predicate_run(p, &r));
        CASE(DROPCAPS):
            if (!REFERENCE) break;
            tn = es[esn - 1].trail;
            ip++;
            NEXT;
        PROFILED_CODE(
        CASE(PDEFERPIN):
            /* PDEFER whose call compiled in begins with a PIN (fuse_counted_calls):
             * a first call does that PIN's work too and goes on after it */
            if (defer && FIRST_CALL_AT(ip->d)) {
                ENTER_INLINE(ip + 3);
                ip += 4;
                NEXT;
            }
            ip++;
            if (defer) goto memo_call;
            NEXT;
        CASE(PTAIL):
            /* a call in tail position (chain_tail_calls): the plain frame on
             * top, its caller's, stands for the b calls of its chain, and the
             * body of the chain's last rule, at c, runs; with another entry
             * on top, the call of a is made as written */
            NOTE_PC(ip);
            if (es[esn - 1].kind == E_CALL && !noplain) {
                NOTE_MEMORY();
                TAIL_FRAME(&es[esn - 1], (uint32_t)ip->d, ip->b);
                depth += (uint32_t)ip->b;
                if (depth > max_depth) goto too_deep;
                ip = code + ip->c;
                NEXT;
            }
            {
                const cc_rule *rule = &g->rules[(uint32_t)ip->a % nrules];
                uint32_t body = (uint32_t)ip->a >= nrules ? rule->prof_vf_entry : rule->prof_entry;
                if (!noplain) {
                    PLAIN_CALL((uint32_t)(ip - code) + 1, body, ip->a, 0, 0);
                    NEXT;
                }
                NOTE_MEMORY();
                call = (vm_call){ (uint32_t)ip->a, body, 0, (uint32_t)(ip - code) + 1, ip->flags & INS_TAIL };
                CALL_OUT(vm_call_enter(p, &r, &call));
            }
        UNFUSED(case OP_PSPANOUT:)
        CASE(PSPAN):
            /* a call compiled in whose body is the byte span after it
             * (fuse_counted_calls): matched here, its POUT skipped */
            NOTE_PC(ip);
            SPAN_CALL(g->bytesets[ip[1].a].in, ip);
            ip += 3;
            NOTE_PC(ip);
            NEXT;
        CASE(PBYTE):
            /* one whose body is the byte test after it: one that fails is
             * left entered, which is a failure */
            NOTE_PC(ip);
            if (pos >= len || !g->bytesets[ip[1].a].in[s[pos]]) {
                p->chain_counts[ip->a].entered++;
                goto fail;
            }
            pos++;
            p->chain_counts[ip->a].spans++;
            p->chain_counts[ip->a].consumed++;
            ip += 3;
            NOTE_PC(ip);
            NEXT;
        CASE(PWORD): {
            /* an identifier's call compiled in (fuse_counted_calls): a failed
             * byte test leaves it entered, which is a failure */
            NOTE_PC(ip);
            if (pos >= len || !g->bytesets[ip[1].a].in[s[pos]]) {
                p->chain_counts[ip->a].entered++;
                goto fail;
            }
            uint32_t from = pos;
            pos = vm_byte_span(s, pos + 1, len, g->bytesets[ip[2].a].in);
            vm_chain_count *c = &p->chain_counts[ip->a];
            c->spans++;
            c->consumed += pos - from;
            ip += 4;
            NOTE_PC(ip);
            NEXT;
        }
        FUSED_CODE(
        CASE(PDEFERPINSPAN):
            /* PDEFER whose call compiled in begins with a PINSPAN
             * (fuse_counted_calls): a first call goes on into that PINSPAN */
            if (!defer || !FIRST_CALL_AT(ip->d)) {
                ip++;
                if (defer) goto memo_call;
                NEXT;
            }
            ip += 3;
            FALL_THROUGH;)
        CASE(PINSPAN): {
            /* white space with comments compiled in, (span / comment)*, when
             * the span ends it; else as PIN and SPANTEST (fuse_counted_calls) */
            NOTE_PC(ip);
            const vm_ins *t = ip + 1;
            uint32_t from = pos;
            pos = vm_byte_span(s, pos, len, g->bytesets[t->a].in);
            vm_chain_count *c = &p->chain_counts[ip->a];
            if (pos < len && g->bytesets[t->c].in[s[pos]]) {
                NOTE_MEMORY();
                c->entered++;
                p->inline_start[ip->b] = from;
                ip += 2;
                NOTE_PC(ip);
                NEXT;
            }
            c->spans++;
            c->consumed += pos - from;
            ip = code + t->b + 1;
            NOTE_PC(ip);
            NEXT;
        })
        NOT_PROFILED(case OP_PSPAN: case OP_PBYTE: case OP_PWORD: case OP_PINSPAN: case OP_PTAIL: case OP_PDEFERPIN:
                     case OP_PSPANOUT: case OP_POUTRET: case OP_PDEFERPINSPAN:)
        case OP__COUNT:
            break;
        }
        goto corrupt;

    fail:
        /* pop entries until one handles the failure */
        LOOKED(pos);
        NOTE_MEMORY();
        for (;;) {
            e = &es[--esn];
            switch (e->kind) {
            case E_CALL:
                COUNT_FAILURE(e);
                COUNT_FAIL_SITE(e->u.call.ret - 1u)
                depth -= FRAME_DEPTH(e);
                continue;
            case E_CALL2:
                if (!TAIL_CALLS) goto corrupt;
                depth -= FRAME_DEPTH(e) + 1u + e->lower_extra;
                continue;
            case E_GCALL:
                CALL_OUT(vm_call_fail(p, &r, e));
            case E_MCALL:
                if (!PROFILED) goto corrupt;
                MEMO_STORE(e, 0);
                COUNT_FAIL_SITE(e->u.call.ret - 1u)
                depth--;
                continue;
            PROFILED_CODE(
            case E_TCALL:
                COUNT_TAIL_FAILURE(e);
                COUNT_FAIL_SITE(e->u.call.ret - 1u)
                depth -= 1u + e->tail_calls;
                continue;)
            case E_CHOICE:
                if (e->cut) continue;
                RESTORE_ENTRY(e);
                ip = code + e->u.choice.alt;
                break;
            case E_ITER: {
                if (STREAM_REP(code + e->u.iter.rep)) CALL_OUT(vm_stream_failed(p, &r, e));
                if (e->cut) continue;
                const vm_ins *rep = code + e->u.iter.rep;
                RESTORE_ENTRY(e);
                if (e->u.iter.count < (uint32_t)rep->b) continue;
                SET_LB(e->u.iter.list_base);
                ip = code + rep->a;
                break;
            }
            case E_LOOK:
                p->silent--;
                continue;
            case E_NLOOK:
                p->silent--;
                RESTORE_ENTRY(e);
                ip = code + e->u.choice.alt;
                break;
            case E_LABEL:
            case E_RECOVER:
            case E_SKIP:
                if (!REFERENCE) {
                    if (e->kind == E_SKIP) continue;     /* the skip failed: no recovery */
                    if (e->kind != E_RECOVER) goto corrupt;
                    RESTORE_ENTRY(e);                    /* the skip, from where the expression began */
                    e->kind = E_SKIP;
                    esn++;
                    ip = code + e->u.window.target;
                    break;
                }
                CALL_OUT(vm_recover_failed(p, &r, e));
            case E_SUB:
                CALL_OUT(vm_pratt_line_failed(p, &r, e));
            case E_BOTTOM:
                if (STREAM && !p->stream.eof && !p->stream.done) CALL_OUT(vm_stream_end(p, &r, 1));
                FLUSH_CALLS();
                return SYNTAX_ERROR();
            }
            break;
        }
        NOTE_PC(ip);
        NEXT;

    called_out:
        RELOAD();
        NOTE_PC(ip);
        switch (step) {
        case VM_NEXT:       NEXT;
        case VM_FAIL:       goto fail;
        case VM_PLAIN_CALL: goto plain_call;
        case VM_OOM:        goto oom;
        case VM_TOO_DEEP:   goto too_deep;
        case VM_ABORTED:    goto aborted;
        case VM_ACTION_ERROR:
            FLUSH_CALLS();
            return p->res.status;
        }
        goto corrupt;

    plain_call:
        PLAIN_CALL(call.ret, call.entry, call.variant, call.level, call.tail);
        NEXT;

    memo_call:
        /* A later call of a deferrable rule at a position in the profiled
         * program (the call instruction at ip: CALLG, or PDEFER's real call).
         * The memo table decides it, as it decides the reference program's
         * (vm/call.c), here in the loop, since the profiled program makes all
         * the memoized calls the reference program makes. A hit takes the
         * stored outcome; else a frame E_MCALL makes the call and stores its
         * outcome in the entry vm_memo_lookup made or found for it when the
         * call returns or fails (MEMO_STORE). The call counts as
         * the general path counts it. */
        if (!PROFILED) goto corrupt;
        NOTE_MEMORY();
        {
            uint32_t k;
            int hit = vm_memo_lookup(p, (uint32_t)ip->a, pos, &k);
            vm_count *c = &p->counts[ip->a];
            if (hit < 0) goto oom;
            c->calls++;
            if (hit) {
                const rt_memo_entry *m = &p->memo.entries[k];
                c->memo++;
                vm_count_outcome(c, m->flags & MEMO_OK, pos, m->end);
                if (!(m->flags & MEMO_OK)) {
                    COUNT_FAIL_SITE((uint32_t)(ip - code))
                    goto fail;
                }
                pos = m->end;
                if (VALUED && (uint32_t)ip->a < nrules) PUSH_VALUE(m->value);
                ip++;
                NEXT;
            }
            c->evals++;
            PUSH_ENTRY(E_MCALL);
            e->memo = k;
            e->u.call.ret = (uint32_t)(ip - code) + 1;
            SAMPLED_FRAME(e, ip->a, E_MCALL);
            if (++depth > max_depth) goto too_deep;
            ip = code + ip->b;
            NEXT;
        }

    pair_call:
        /* a plain call of the fast program on a deep stack (PLAIN_CALL): a lone
         * plain frame on top moves to the fields the frames leave unused, and
         * the callee's frame takes the usual ones (E_CALL2, vm/stack.h) */
        if (!TAIL_CALLS) goto corrupt;
        e = &es[esn - 1];
        if (e->kind == E_CALL && e->u.call.extra_levels <= UINT16_MAX) {
            e->kind = E_CALL2;
            e->lower_extra = (uint16_t)e->u.call.extra_levels;
            e->lower_pos = e->pos;
            e->u.call.lower_ret = e->u.call.ret;
            e->pos = pos;
            if (VALUED) e->lower_trail = e->trail, e->trail = CUR_TN;
        } else {
            PUSH_ENTRY(E_CALL);
        }
        e->u.call.ret = call.ret;
        e->u.call.extra_levels = 0;
        if (++depth > max_depth) goto too_deep;
        plain_calls++;
        ip = code + call.entry;
        NEXT;

    }

corrupt:
    FLUSH_CALLS();
    return rt_parse_abort(p, "internal error: bad instruction %u", (unsigned)ip->op);
too_deep:
    FLUSH_CALLS();
    p->res.too_deep = 1;
    return rt_parse_abort(p, "nesting too deep: more than %u rule calls", p->max_depth);
aborted:
    FLUSH_CALLS();
    return rt_parse_abort(p, "parse aborted by a trace callback");
oom:
    FLUSH_CALLS();
    p->res.status = PEGO_ENOMEM;
    return rt_parse_abort(p, "out of memory");
capped:
    FLUSH_CALLS();
    return VM_CAPPED;
}

#undef FLUSH_CALLS
#undef COUNT_RETURN
#undef COUNT_FAILURE
#undef TAILED
#undef ENTER_INLINE
#undef LEAVE_INLINE
#undef COUNT_TAIL_RETURN
#undef COUNT_TAIL_FAILURE
#undef TAIL_FRAME
#undef COUNT_FAIL_SITE
#undef FIRST_CALL_AT
#undef CUR_VS
#undef CUR_TN
#undef SET_VS
#undef SET_TN
#undef SET_LB
#undef CUR_REC
#undef SET_REC
#undef SET_VARS
#undef RESTORE_ENTRY
#undef UNDO_SKIPS
#undef PUSH_ENTRY
#undef PLAIN_CALL
#undef GENERAL_CALL
#undef DECIDE_CALL
#undef CALL_OUT
#undef RELOAD
#undef PUSH_VALUE
#undef NODE
#undef PUSH_MATCH
/* the variant's names */
#undef VM_RUN
#undef VALUED
#undef REFERENCE
#undef PROFILED
#undef PROFILED_CODE
#undef NOT_PROFILED
#undef FUSED_CODE
#undef UNFUSED
#undef FUSED
#undef op_PSPAN
#undef op_PBYTE
#undef op_PWORD
#undef op_PINSPAN
#undef op_PTAIL
#undef op_PDEFERPIN
#undef op_PSPANOUT
#undef op_POUTRET
#undef op_PDEFERPINSPAN
#undef EXPECT
#undef LOOKED
#undef WATCHED
#undef FILL_ENTRY
#undef CALL_FRAME
#undef TAIL_CALLS
#undef FRAME_DEPTH
#undef SYNTAX_ERROR
#undef NOTE_PC
#undef NOTE_MEMORY
#undef PROBE
#undef DECIDE
#undef STREAM
#undef END_SEEN
#undef LOOK_SEEN
#undef STREAM_REP
