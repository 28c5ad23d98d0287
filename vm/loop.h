/* The dispatch loop, compiled twice by vm.c from this one source: VM_RUN is the
 * function's name, and VM_FAST selects the copy that runs the fast program
 * (compiler/emit.c). The fast copy leaves out what the fast program never
 * needs: expectations (it runs silent), the examined-input mark, the hooks of
 * tracing and profiling (an observed parse runs the reference program), Pratt
 * expressions and #recover (grammars with them have no fast program). With
 * less code and fewer variables live, its hot paths keep their state in
 * registers. VM_RECOG (with VM_FAST) makes a third copy for recognition, which
 * runs value-free bodies only: no value stack, no capture trail. */

static int VM_RUN(pego_parser *p, uint32_t start_variant)
{
    const pego_grammar *g = p->g;
    const vm_ins *code = g->code, *ip = code;
    const unsigned char *s = (const unsigned char *)p->in.input;
    const uint32_t len = p->in.len;
    const uint32_t nrules = (uint32_t)g->nrules;
    pego_stats *st = &p->res.stats;
    /* kept in registers: the nesting depth, and the plain calls (each is also
     * one evaluation), added to the statistics when the run ends or before the
     * general path reads them */
    uint32_t depth = 0;
    const uint32_t max_depth = p->max_depth;
    uint64_t plain_calls = 0;
    vm_entry *es = p->es;              /* the control stack, reloaded when it grows */
    uint32_t capes = p->capes;
    const int noplain = p->noplain, defer = p->defer;
#define FLUSH_CALLS() (st->calls += plain_calls, st->evals += plain_calls, plain_calls = 0)
    uint32_t pos = 0, esn = 0;
#if VM_RECOG
#define VALUED 0
#define CUR_VS 0u
#define CUR_TN 0u
#define SET_VS(x) ((void)0)
#define SET_TN(x) ((void)0)
#define SET_LB(x) ((void)0)
#else
    uint32_t vsn = 0, tn = 0, list_base = 0;
#define VALUED 1
#define CUR_VS vsn
#define CUR_TN tn
#define SET_VS(x) (vsn = (x))
#define SET_TN(x) (tn = (x))
#define SET_LB(x) (list_base = (x))
#endif
#if VM_FAST
#define CUR_REC 0u              /* no #recover in the fast program */
#define SET_REC(x) ((void)0)
#else
#define CUR_REC p->nrec
#define SET_REC(x) (p->nrec = (x))
#endif
#if VM_RECOG
#define SAVE_VALUES(e) ((void)0)
#else
#define SAVE_VALUES(e) ((e)->vs = vsn, (e)->trail = tn)
#endif
/* Back to the state an entry saved. */
#define RESTORE_ENTRY(e) (pos = (e)->pos, SET_VS((e)->vs), SET_TN((e)->trail), SET_REC((e)->rec))
    uint32_t call_variant, call_entry, call_ret, ret_value, call_level = 0;
    vm_entry *e;

#define PUSH_ENTRY(k, target) do { \
        if (esn == capes) { \
            if (rt_buf_grow((void **)&p->es, &p->capes, esn + 1, sizeof(vm_entry)) < 0) goto oom; \
            es = p->es; \
            capes = p->capes; \
        } \
        e = &es[esn++]; \
        FILL_ENTRY(e, (k), (target)); \
    } while (0)
#if VM_FAST
/* The fast copies write only what they read back: level and aux2 are set by the
 * entries that use them (GCALL, ITER), and the saved heights only where
 * there are values. */
#define FILL_ENTRY(e, k, target) ((e)->kind = (uint8_t)(k), (e)->cut = 0, (e)->ip = (target), (e)->pos = pos, \
                                  (e)->aux = 0, SAVE_VALUES(e))
#else
#define FILL_ENTRY(e, k, target) \
    (*(e) = (vm_entry){ .kind = (k), .ip = (target), .pos = pos, .vs = CUR_VS, .trail = CUR_TN, .rec = CUR_REC })
#endif
/* The plain path of the call instruction at ip (engine notes: a frame and a jump).
 * The reference copy records the variant and level, which Pratt rules read. */
#if VM_FAST
#define CALL_FRAME(e) ((void)0)
#else
#define CALL_FRAME(e) ((e)->aux = (uint32_t)ip->a, (e)->level = (uint16_t)ip->c)
#endif
#if VM_FAST
/* A call in tail position (INS_TAIL: a RET follows) reuses the caller's plain
 * frame, which then stands for one more level of nesting (aux counts them). */
#define PLAIN_CALL() do { \
        if ((ip->flags & INS_TAIL) && es[esn - 1].kind == E_CALL) { \
            es[esn - 1].aux++; \
        } else { \
            PUSH_ENTRY(E_CALL, (uint32_t)(ip - code) + 1); \
        } \
        if (++depth > max_depth) goto too_deep; \
        plain_calls++; \
        ip = code + ip->b; \
    } while (0)
#define FRAME_DEPTH(e) (1 + (e)->aux)
#else
#define PLAIN_CALL() do { \
        PUSH_ENTRY(E_CALL, (uint32_t)(ip - code) + 1); \
        CALL_FRAME(e); \
        if (++depth > max_depth) goto too_deep; \
        plain_calls++; \
        ip = code + ip->b; \
    } while (0)
#define FRAME_DEPTH(e) 1
#endif
#define PUSH_VALUE(v) do { \
        if (vsn == p->capvs && rt_buf_grow((void **)&p->vs, &p->capvs, vsn + 1, sizeof(uint32_t)) < 0) goto oom; \
        p->vs[vsn++] = (v); \
    } while (0)
#if VM_RECOG
#define PUSH_MATCH(start) ((void)(start))
#else
#define PUSH_MATCH(start) do { \
        if (ip->flags & INS_VALUE) { uint32_t v_; NODE(v_, NODE_MATCH, (start), NULL, 0); PUSH_VALUE(v_); } \
    } while (0)
#endif
#define MARK(mk) ((mk) = (vm_mark){ pos, vsn, tn, p->nrec })
#define RESTORE(mk) (pos = (mk).pos, vsn = (mk).vs, tn = (mk).trail, p->nrec = (mk).rec)
#define PUSH_PARSE(minimum) do { \
        if (p->npf == p->cappf && rt_buf_grow((void **)&p->pf, &p->cappf, p->npf + 1, sizeof(vm_pframe)) < 0) goto oom; \
        f = &p->pf[p->npf - 1]; \
        p->pf[p->npf++] = (vm_pframe){ .pratt = f->pratt, .state = PS_HEAD, .valued = f->valued, \
                                       .min = (minimum) }; \
        f = &p->pf[p->npf - 1]; \
        if (++depth > max_depth) goto too_deep; \
    } while (0)
#define OPERATOR(var, start, kids, nkids, number) do { \
        NODE(var, NODE_OPERATOR, (start), (kids), (nkids)); \
        rt_tree_node_set_label(&p->tree.nodes[var - 1], pr->rule); \
        if (g->label_operator >= 0 && scalar_field(p, var, g->label_operator, FIELD_INT, (uint32_t)(number)) < 0) \
            goto oom; \
    } while (0)
#if VM_FAST
#define LOOKED(x) ((void)0)
#define EXPECT(at, id) ((void)0)
#define WATCHED 0
#else
#define LOOKED(x) do { if ((x) > p->hw) p->hw = (x); } while (0)
#define EXPECT(at, id) expect(p, (at), (id))
#define WATCHED OBSERVING(p)
#endif
#define NODE(var, type, start, kids, nkids) do { \
        var = rt_tree_node(&p->tree, (type), (start), pos, (kids), (nkids)); \
        if (!var) goto oom; \
    } while (0)

    /* Lookahead nesting, also in the fast program (which records no expectations):
     * a memo entry made inside a lookahead is not used outside one. */
    p->silent = 0;
    p->ngf = 0;
    p->npf = 0;
    p->nrec = 0;
    p->nheld = 0;
    p->hw = 0;
    rt_buf_reset(&p->strings);
    PUSH_ENTRY(E_BOTTOM, 0);
    call_variant = start_variant;
    {
        const cc_rule *r = &g->rules[start_variant % nrules];
        if (p->fast) call_entry = start_variant >= nrules ? r->fast_vf_entry : r->fast_entry;
        else call_entry = start_variant >= nrules ? r->vf_entry : r->entry;
    }
    call_ret = 0;
    {
        const cc_rule *r = &g->rules[start_variant % nrules];
        if ((r->flags & RULE_LEADER) || ((r->flags & RULE_MEMO) && !(r->flags & RULE_TRANSIENT)) || p->noplain)
            goto general_call;
        goto plain_call;
    }

    /* Dispatch: with GCC and Clang every instruction ends in its own indirect
     * jump through a table of label addresses (NEXT), which skips the switch's
     * range check and gives each jump its own branch history. */
#if defined(__GNUC__)
    static const void *const op_label[OP__COUNT] = {
#define VM_LABEL(name, fmt, doc) [OP_##name] = &&op_##name,
        VM_OPCODES(VM_LABEL)
#undef VM_LABEL
    };
#define CASE(name) case OP_##name: op_##name
#define NEXT goto *op_label[ip->op]
#else
#define CASE(name) case OP_##name
#define NEXT continue
#endif

    for (;;) {
        switch ((vm_opcode)ip->op) {
        CASE(END):
            p->res.value = CUR_VS ? p->vs[CUR_VS - 1] & ~VAL_CALLED : VAL_NIL;
            FLUSH_CALLS();
            return PEGO_OK;

        CASE(LIT): {
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
                    LOOKED(pos + k + (pos + k < len));
                }
                goto fail;
            }
            pos = end;
            PUSH_MATCH(start);
            ip++;
            NEXT;
        }
        CASE(CLASS): {
            const cc_class *c = &g->classes[ip->a];
            uint32_t w;
            if (pos >= len || !(w = class_at(c, s, pos, len))) {
                EXPECT(pos, c->expect);
                LOOKED(pos + (pos < len));
                goto fail;
            }
            pos += w;
            PUSH_MATCH(pos - w);
            ip++;
            NEXT;
        }
        CASE(ANY): {
            if (pos >= len) { EXPECT(pos, EXP_ANY); goto fail; }
            uint32_t start = pos, ch;
            pos += s[pos] < 0x80 ? 1 : (uint32_t)rt_unicode_decode(s + pos, len - pos, &ch);
            PUSH_MATCH(start);
            ip++;
            NEXT;
        }
        CASE(SPAN): {
            const cc_class *c = &g->classes[ip->a];
            int64_t count = 0, max = ip->c;
            uint32_t w;
            while (max < 0 || count < max) {
                if (pos >= len || !(w = class_at(c, s, pos, len))) {
                    EXPECT(pos, c->expect);
                    LOOKED(pos + (pos < len));
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
            ip++;
            NEXT;
        CASE(BOL):
            if (pos != 0 && s[pos - 1] != '\n') { EXPECT(pos, EXP_BOL); goto fail; }
            ip++;
            NEXT;
        CASE(EOL):
            if (pos != len && s[pos] != '\n' && s[pos] != '\r') { EXPECT(pos, EXP_EOL); LOOKED(pos + 1); goto fail; }
            ip++;
            NEXT;
        CASE(FAIL):
            goto fail;
        CASE(TEST): {
            const cc_class *c = &g->classes[ip->a];
            if (pos >= len || !class_at(c, s, pos, len)) {
                EXPECT(pos, c->expect);
                LOOKED(pos + (pos < len));
                ip = code + ip->b;
                NEXT;
            }
            ip++;
            NEXT;
        }
        CASE(TESTCHAR):
            if (pos >= len || s[pos] != (unsigned char)ip->a) {
                EXPECT(pos, (uint32_t)ip->c);
                LOOKED(pos + (pos < len));
                ip = code + ip->b;
                NEXT;
            }
            ip++;
            NEXT;
        CASE(BTEST):
            if (pos >= len || !g->bytesets[ip->a].in[s[pos]]) {
                ip = code + ip->b;
                NEXT;
            }
            ip++;
            NEXT;
        CASE(BSPAN): {
            const uint8_t *set = g->bytesets[ip->a].in;
#ifdef PEGO_FAULT_INJECTION
            uint32_t from = pos;
            while (pos < len && set[s[pos]]) pos++;
            if (vm_fault_fast_span && pos > from) pos--;
#else
            while (pos < len && set[s[pos]]) pos++;
#endif
            ip++;
            NEXT;
        }
        CASE(BSPAN1): {
            const uint8_t *set = g->bytesets[ip->a].in;
            if (pos >= len || !set[s[pos]]) goto fail;
            pos++;
            while (pos < len && set[s[pos]]) pos++;
            ip++;
            NEXT;
        }
        CASE(SPANTEST): {
            const uint8_t *set = g->bytesets[ip->a].in;
            while (pos < len && set[s[pos]]) pos++;
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
            if (ip->a >= 0) {
                const uint8_t *set = g->bytesets[ip->a].in;
                while (pos < len && set[s[pos]]) pos++;
            }
            if (pos >= len || s[pos] != (unsigned char)ip->b) goto fail;
            pos++;
            if (ip->c >= 0) {
                const uint8_t *set = g->bytesets[ip->c].in;
                while (pos < len && set[s[pos]]) pos++;
            }
            ip += ip->d;
            NEXT;
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
#if VM_RECOG
        CASE(CHARV):
            break;
#else
        CASE(CHARV): {
            if (pos >= len || s[pos] != (unsigned char)ip->a) goto fail;
            uint32_t v;
            pos++;
            NODE(v, NODE_MATCH, pos - 1, NULL, 0);
            PUSH_VALUE(v);
            ip++;
            NEXT;
        }
#endif
        CASE(CHOICE):
            PUSH_ENTRY(E_CHOICE, (uint32_t)ip->a);
            ip++;
            NEXT;
        CASE(COMMIT):
            esn--;
            ip = code + ip->a;
            NEXT;
        CASE(REP):
            PUSH_ENTRY(E_ITER, (uint32_t)(ip - code));
            e->aux2 = CUR_VS;
            ip++;
            NEXT;
        CASE(REPNEXT): {
            const vm_ins *rep = code + ip->a;
            e = &es[esn - 1];
            uint32_t count = e->aux + 1;
#if !VM_RECOG
            if (ip->flags & INS_SCOPE) {
                uint32_t v = apply_fields(p, p->vs[vsn - 1], e->trail, tn, e->pos, pos);
                if (!v && tn != e->trail) goto oom;
                p->vs[vsn - 1] = v;
                tn = e->trail;
            }
#endif
            if (pos == e->pos || (rep->c >= 0 && count >= (uint32_t)rep->c)) {
                esn--;
                if (count < (uint32_t)rep->b) goto fail;
                SET_LB(e->aux2);
                ip = code + rep->a;
                NEXT;
            }
            e->pos = pos;
            e->vs = CUR_VS;
            e->trail = CUR_TN;
            e->rec = CUR_REC;
            e->aux = count;
            e->cut = 0;
            ip = rep + 1;
            NEXT;
        }
        CASE(ITEREXIT): {
            /* the guard of an iteration failed where the iteration would begin */
            const vm_ins *rep = code + ip->a;
            e = &es[--esn];
            if (e->aux < (uint32_t)rep->b) goto fail;
            SET_LB(e->aux2);
            ip = code + rep->a;
            NEXT;
        }
        CASE(LOOK):
            PUSH_ENTRY(E_LOOK, 0);
            p->silent++;
            ip++;
            NEXT;
        CASE(NLOOK):
            PUSH_ENTRY(E_NLOOK, (uint32_t)ip->a);
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
            e = &es[--esn];
            p->silent--;
            pos = e->pos; SET_VS(e->vs); SET_TN(e->trail);
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
        CASE(CALL):
            if (!noplain) {
                PLAIN_CALL();
                NEXT;
            }
            call_variant = (uint32_t)ip->a;
            call_entry = (uint32_t)ip->b;
            call_level = (uint32_t)ip->c;
            call_ret = (uint32_t)(ip - code) + 1;
            goto general_call;
        plain_call:
            PUSH_ENTRY(E_CALL, call_ret);
#if !VM_FAST
            e->aux = call_variant;
            e->level = (uint16_t)call_level;
#endif
            if (++depth > max_depth) goto too_deep;
            plain_calls++;
            ip = code + call_entry;
            NEXT;
        CASE(CALLG):
            if ((ip->flags & INS_DEFER) && defer) {
                /* the fast program's deferrable rule, default policy, unobserved:
                 * its first call at a position is a plain call (general_call) */
                size_t bit = (size_t)pos * (size_t)g->ndeferrable + ip->d;
                uint64_t mask = 1ull << (bit & 63), *word = &p->memo.seen[bit >> 6];
                if (!(*word & mask)) {
                    *word |= mask;
                    PLAIN_CALL();
                    NEXT;
                }
            }
            call_variant = (uint32_t)ip->a;
            call_entry = (uint32_t)ip->b;
            call_level = (uint32_t)ip->c;
            call_ret = (uint32_t)(ip - code) + 1;
            goto general_call;
        CASE(RET):
            e = &es[esn - 1];
            if (e->kind == E_GCALL) goto general_return;
            esn--;
            depth -= FRAME_DEPTH(e);
            ip = code + e->ip;
            NEXT;
#if VM_RECOG
        CASE(RULEEND): CASE(PUSHPOS): CASE(LISTOPEN): CASE(SEQ): CASE(MATCH): CASE(TOP): CASE(NIL):
        CASE(LIST): CASE(CAPTURE): CASE(POP):
            break;
#else
        CASE(RULEEND): {
            e = &es[esn - 1];
            uint32_t v = p->vs[vsn - 1];
            if (tn != e->trail) {
                v = apply_fields(p, v, e->trail, tn, e->pos, pos);
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
        CASE(PUSHPOS):
        CASE(LISTOPEN):
            PUSH_VALUE(pos);
            ip++;
            NEXT;
        CASE(SEQ): {
            uint32_t n = (uint32_t)ip->a, v;
            NODE(v, NODE_SEQ, p->vs[vsn - n - 1], p->vs + vsn - n, n);
            vsn -= n + 1;
            p->vs[vsn++] = v;
            ip++;
            NEXT;
        }
        CASE(MATCH): {
            uint32_t v;
            NODE(v, NODE_MATCH, p->vs[vsn - 1], NULL, 0);
            p->vs[vsn - 1] = v;
            ip++;
            NEXT;
        }
        CASE(TOP): {
            uint32_t v;
            NODE(v, NODE_MATCH, pos, NULL, 0);
            PUSH_VALUE(v);
            ip++;
            NEXT;
        }
        CASE(NIL):
            PUSH_VALUE(VAL_NIL);
            ip++;
            NEXT;
        CASE(LIST): {
            uint32_t v, base = ip->a ? vsn : list_base;     /* a: no iteration (a{0,0}) */
            NODE(v, NODE_LIST, p->vs[base - 1], p->vs + base, vsn - base);
            vsn = base - 1;
            p->vs[vsn++] = v;
            ip++;
            NEXT;
        }
        CASE(CAPTURE):
            if (tn == p->captrail && rt_buf_grow((void **)&p->trail, &p->captrail, tn + 1, sizeof(vm_capture)) < 0)
                goto oom;
            p->trail[tn++] = (vm_capture){ (uint32_t)ip->a, p->vs[vsn - 1] };
            ip++;
            NEXT;
        CASE(POP):
            vsn--;
            ip++;
            NEXT;
#endif
        CASE(JMP):
            ip = code + ip->a;
            NEXT;
#if !VM_FAST
        CASE(LABEL):
            PUSH_ENTRY(E_LABEL, (uint32_t)ip->a);
            e->aux = p->exp.far;
            e->aux2 = p->exp.base;
            open_window(p, pos);
            ip++;
            NEXT;
        CASE(LABELEND):
            e = &es[--esn];
            close_window(p, e->aux, e->aux2, 1);
            ip++;
            NEXT;
        CASE(RECOVER):
            PUSH_ENTRY(E_RECOVER, (uint32_t)ip->a);
            e->aux = p->exp.far;
            e->aux2 = p->exp.base;
            open_window(p, pos);
            ip++;
            NEXT;
        CASE(RECOVEREND):
            e = &es[--esn];
            close_window(p, e->aux, e->aux2, 1);
            ip = code + ip->a;
            NEXT;
        CASE(SKIPEND): {
            /* The skip matched. An empty skip is no recovery (language.md 4.3). */
            e = &es[esn - 1];
            if (pos == e->pos) goto fail;
            esn--;
            uint32_t text = recover_error(p, e->ip, RT_AT(p->held, e->aux), e->aux2);
            p->nheld = e->aux;
            if (text == UINT32_MAX) goto oom;
            if (ip->flags & INS_VALUE) {
                uint32_t v;
                NODE(v, NODE_ERROR, e->pos, NULL, 0);
                if (g->label_message >= 0 && scalar_field(p, v, g->label_message, FIELD_STRING, text) < 0) goto oom;
                PUSH_VALUE(v);
            }
            ip++;
            NEXT;
        }
        CASE(PSTART): {
            /* The outer parse of a Pratt rule, at the level of the call (the rule's
             * call entry is on top). */
            e = &es[esn - 1];
            if (p->npf == p->cappf && rt_buf_grow((void **)&p->pf, &p->cappf, p->npf + 1, sizeof(vm_pframe)) < 0)
                goto oom;
            p->pf[p->npf++] = (vm_pframe){ .pratt = (uint16_t)ip->a, .state = PS_HEAD, .outer = 1,
                                           .valued = e->aux < nrules, .min = e->level ? e->level - 1u : 0 };
            if (++depth > max_depth) goto too_deep;
            ip++;
            NEXT;
        }
        CASE(PRATT): {
            /* The Pratt machine (language.md 3.2): runs until it needs a line to be
             * matched (it pushes a line entry and jumps; SUBRET or a failure brings
             * the outcome back here) or its outer parse is over. */
            const cc_pratt *pr = &g->pratts[ip->a];
            vm_pframe *f = &p->pf[p->npf - 1];
            uint32_t line;          /* address of the line to run */
            int finished;           /* 1: the parse returned lhs, -1: it failed */
            for (;;) {
                finished = 0;
                switch ((pratt_state)f->state) {
                case PS_HEAD:
                    f->state = PS_HEAD_SKIPPED;
                    if (pr->has_skip) { p->silent++; line = pr->skip; goto run_line; }
                    continue;
                case PS_HEAD_SKIPPED:
                    if (pr->has_skip) p->silent--;
                    MARK(f->m);
                    f->idx = 0;
                    f->best = -1;
                    f->cut_failed = 0;
                    f->state = PS_PREFIX_TRY;
                    continue;
                case PS_PREFIX_TRY:
                    if (f->idx < pr->nprefix) {
                        RESTORE(f->m);
                        f->state = PS_PREFIX_TRIED;
                        line = pr->prefix[f->idx].vf_code;
                        goto run_line;
                    }
                    if (f->best >= 0) {
                        RESTORE(f->m);
                        f->state = PS_PREFIX_RERUN;
                        line = f->valued ? pr->prefix[f->best].code : pr->prefix[f->best].vf_code;
                        goto run_line;
                    }
                    if (f->cut_failed) { finished = -1; break; }
                    f->idx = 0;
                    f->state = PS_OPERAND;
                    continue;
                case PS_PREFIX_TRIED:
                    if (f->out_ok && pos > f->m.pos && (f->best < 0 || pos > f->best_end)) {
                        f->best = f->idx;
                        f->best_end = pos;
                    }
                    if (!f->out_ok && f->out_cut) f->cut_failed = 1;
                    RESTORE(f->m);
                    f->idx++;
                    f->state = PS_PREFIX_TRY;
                    continue;
                case PS_PREFIX_RERUN:
                    f->op_value = f->out_value;
                    f->op_cut = f->out_cut;
                    f->op_start = f->m.pos;
                    f->state = PS_PREFIX_RHS;
                    PUSH_PARSE(pr->prefix[f->best].level);
                    continue;
                case PS_PREFIX_RHS:
                    if (f->out_ok) {
                        const cc_pratt_op *op = &pr->prefix[f->best];
                        if (f->valued) {
                            uint32_t kids[2] = { f->op_value, f->out_value };
                            OPERATOR(f->lhs, f->op_start, kids, 2, op->number);
                        }
                        f->lhs_start = f->op_start;
                        f->last_none = 0;
                        f->state = PS_LOOP;
                        continue;
                    }
                    if (f->op_cut) { finished = -1; break; }
                    RESTORE(f->m);
                    f->idx = 0;
                    f->state = PS_OPERAND;
                    continue;
                case PS_OPERAND:
                    if (f->idx >= pr->noperands) { finished = -1; break; }
                    RESTORE(f->m);
                    f->state = PS_OPERAND_TRIED;
                    line = f->valued ? pr->operands[f->idx] : pr->vf_operands[f->idx];
                    goto run_line;
                case PS_OPERAND_TRIED:
                    if (f->out_ok) {
                        f->lhs = f->out_value;
                        f->lhs_start = f->m.pos;
                        f->last_none = 0;
                        f->state = PS_LOOP;
                        continue;
                    }
                    if (f->out_cut) { finished = -1; break; }
                    f->idx++;
                    f->state = PS_OPERAND;
                    continue;
                case PS_LOOP:
                    MARK(f->m);
                    f->state = PS_LOOP_SKIPPED;
                    if (pr->has_skip) { p->silent++; line = pr->skip; goto run_line; }
                    continue;
                case PS_LOOP_SKIPPED:
                    if (pr->has_skip) p->silent--;
                    MARK(f->m2);
                    f->idx = 0;
                    f->best = -1;
                    f->cut_failed = 0;
                    f->state = PS_TAIL_TRY;
                    continue;
                case PS_TAIL_TRY:
                    if (f->idx < pr->ntail) {
                        RESTORE(f->m2);
                        f->state = PS_TAIL_TRIED;
                        line = pr->tail[f->idx].vf_code;
                        goto run_line;
                    }
                    if (f->best < 0) {
                        RESTORE(f->m);
                        finished = f->cut_failed ? -1 : 1;
                        break;
                    }
                    {
                        const cc_pratt_op *op = &pr->tail[f->best];
                        if ((uint32_t)op->level <= f->min ||
                            (op->kind == PRATT_INFIX_NONE && (uint32_t)op->level == f->last_none)) {
                            RESTORE(f->m);
                            finished = 1;
                            break;
                        }
                        RESTORE(f->m2);
                        f->state = PS_TAIL_RERUN;
                        line = f->valued ? op->code : op->vf_code;
                        goto run_line;
                    }
                case PS_TAIL_TRIED: {
                    const cc_pratt_op *op = &pr->tail[f->idx];
                    int matched = f->out_ok && !(op->kind == PRATT_POSTFIX && pos == f->m2.pos);
                    if (matched && (f->best < 0 || pos > f->best_end)) {
                        f->best = f->idx;
                        f->best_end = pos;
                    }
                    if (!f->out_ok && f->out_cut) f->cut_failed = 1;
                    RESTORE(f->m2);
                    f->idx++;
                    f->state = PS_TAIL_TRY;
                    continue;
                }
                case PS_TAIL_RERUN: {
                    const cc_pratt_op *op = &pr->tail[f->best];
                    f->op_value = f->out_value;
                    f->op_cut = f->out_cut;
                    if (op->kind == PRATT_POSTFIX) {
                        if (f->valued) {
                            uint32_t kids[2] = { f->lhs, f->op_value };
                            OPERATOR(f->lhs, f->lhs_start, kids, 2, op->number);
                        }
                        f->last_none = 0;
                        if (pos == f->m.pos) { finished = 1; break; }
                        f->state = PS_LOOP;
                        continue;
                    }
                    f->state = PS_TAIL_RHS;
                    PUSH_PARSE((uint32_t)op->level - (op->kind == PRATT_INFIX_RIGHT));
                    continue;
                }
                case PS_TAIL_RHS: {
                    const cc_pratt_op *op = &pr->tail[f->best];
                    if (f->out_ok) {
                        if (f->valued) {
                            uint32_t kids[3] = { f->lhs, f->op_value, f->out_value };
                            OPERATOR(f->lhs, f->lhs_start, kids, 3, op->number);
                        }
                        f->last_none = op->kind == PRATT_INFIX_NONE ? (uint32_t)op->level : 0;
                        if (pos == f->m.pos) { finished = 1; break; }
                        f->state = PS_LOOP;
                        continue;
                    }
                    if (f->op_cut) { finished = -1; break; }
                    RESTORE(f->m);
                    finished = 1;
                    break;
                }
                }
                /* This parse(min) is over: hand its outcome to the parse below, or
                 * end the rule's outer parse. */
                uint32_t lhs = f->lhs;
                int outer = f->outer;
                p->npf--;
                depth--;
                if (outer) {
                    if (finished < 0) goto fail;
                    if (p->pf[p->npf].valued) PUSH_VALUE(lhs);
                    ip++;
                    break;
                }
                f = &p->pf[p->npf - 1];
                f->out_ok = finished > 0;
                f->out_cut = 0;
                f->out_value = lhs;
            }
            NEXT;
        run_line:
            PUSH_ENTRY(E_SUB, (uint32_t)(ip - code));
            ip = code + line;
            NEXT;
        }
        CASE(SUBRET): {
            /* A Pratt line matched: its captures become fields of its value, an
             * operand's fresh value gets the rule's label. */
            e = &es[--esn];
            vm_pframe *f = &p->pf[p->npf - 1];
            uint32_t v = VAL_NIL;
            if (ip->flags & INS_VALUE) {
                v = p->vs[--vsn];
                if (tn != e->trail) {
                    v = apply_fields(p, v, e->trail, tn, e->pos, pos);
                    if (!v) goto oom;
                }
                if (ip->a >= 0 && v != VAL_NIL && !(v & VAL_CALLED) && rt_tree_node_label(&p->tree.nodes[v - 1]) < 0)
                    rt_tree_node_set_label(&p->tree.nodes[v - 1], ip->a);
            }
            tn = e->trail;
            f->out_ok = 1;
            f->out_cut = e->cut;
            f->out_value = v;
            ip = code + e->ip;
            NEXT;
        }
#else
        /* never in the fast program */
        CASE(LABEL): CASE(LABELEND): CASE(RECOVER): CASE(RECOVEREND): CASE(SKIPEND):
        CASE(PSTART): CASE(PRATT): CASE(SUBRET):
            break;
#endif
        case OP__COUNT:
            break;
        }
        FLUSH_CALLS();
        return rt_parse_abort(p, "internal error: bad instruction %u", (unsigned)ip->op);

    fail:
        LOOKED(pos);
        for (;;) {
            e = &es[--esn];
            switch (e->kind) {
            case E_CALL:
                depth -= FRAME_DEPTH(e);
                continue;
            case E_GCALL:
                goto general_fail;
            case E_CHOICE:
                if (e->cut) continue;
                RESTORE_ENTRY(e);
                ip = code + e->ip;
                break;
            case E_ITER: {
                if (e->cut) continue;
                const vm_ins *rep = code + e->ip;
                RESTORE_ENTRY(e);
                if (e->aux < (uint32_t)rep->b) continue;
                SET_LB(e->aux2);
                ip = code + rep->a;
                break;
            }
            case E_LOOK:
                p->silent--;
                continue;
            case E_NLOOK:
                p->silent--;
                RESTORE_ENTRY(e);
                ip = code + e->ip;
                break;
#if !VM_FAST
            case E_LABEL: {
                /* #error: what the expression recorded is replaced by the message,
                 * at the farthest position reached inside it */
                uint32_t far = p->exp.far;
                close_window(p, e->aux, e->aux2, 0);
                EXPECT(far, e->ip);
                continue;
            }
            case E_RECOVER: {
                /* #recover: hold the failure, restore, and run the skip */
                rt_expect *x = &p->exp;
                uint32_t n = x->n - x->base, far = x->far;
                if (rt_buf_grow((void **)&p->held, &p->capheld, p->nheld + n, sizeof(uint32_t)) < 0) goto oom;
                if (n) memcpy(p->held + p->nheld, x->items + x->base, n * sizeof(uint32_t));
                close_window(p, e->aux, e->aux2, 0);
                uint32_t skip = e->ip;
                RESTORE_ENTRY(e);
                PUSH_ENTRY(E_SKIP, far);
                e->aux = p->nheld;
                e->aux2 = n;
                p->nheld += n;
                ip = code + skip;
                break;
            }
            case E_SKIP:
                /* the skip failed: no recovery; the held failure is recorded */
                RESTORE_ENTRY(e);
                for (uint32_t i = 0; i < e->aux2; i++) EXPECT(e->ip, p->held[e->aux + i]);
                p->nheld = e->aux;
                continue;
            case E_SUB: {
                /* a Pratt line failed: the machine resumes with the outcome */
                vm_pframe *f = &p->pf[p->npf - 1];
                RESTORE_ENTRY(e);
                f->out_ok = 0;
                f->out_cut = e->cut;
                ip = code + e->ip;
                break;
            }
#endif
            case E_BOTTOM:
                FLUSH_CALLS();
#if VM_FAST
                return PEGO_SYNTAX_ERROR;    /* the reference program decides and writes the error */
#else
                return rt_expect_syntax_error(p);
#endif
            }
            break;
        }
        continue;

    general_call: {
        /* Decide whether this call is memoized (language.md 2.1): leaders always;
         * cyclic rules never; others by policy, by default from the second call of
         * a deferrable rule at a position. */
        const cc_rule *r = &g->rules[call_variant % nrules];
        uint32_t f = r->flags;
        int memoize;
        if (f & RULE_LEADER) memoize = 1;
        else if (!(f & RULE_MEMO) || p->policy == PEGO_MEMO_NONE) memoize = 0;
        else if (p->policy == PEGO_MEMO_ALL) memoize = 1;
        else if (f & RULE_TRANSIENT) memoize = 0;
        else {
            size_t bit = (size_t)pos * (size_t)g->ndeferrable + (size_t)r->seen_index;
            uint64_t mask = 1ull << (bit & 63);
            memoize = (p->memo.seen[bit >> 6] & mask) != 0;
            p->memo.seen[bit >> 6] |= mask;
        }
#ifdef PEGO_FAULT_INJECTION
        if (vm_fault_memoize_traced && p->observing && (f & RULE_MEMO)) memoize = 1;
#endif
        if (!memoize && !WATCHED) goto plain_call;
        FLUSH_CALLS();
        /* Here the call is memoized or traced: it gets a side record, its own
         * expectation window and examined range. A traced call is reported before
         * the memo table is consulted, so a memo hit is an ordinary call. */
        st->calls++;
        if (WATCHED && rt_trace_observe_enter(p, call_variant, pos, p->ngf + 1, call_level)) goto trace_abort;
        uint32_t min = call_level ? call_level - 1 : 0;
        rt_memo_entry *m = memoize ? rt_memo_find(&p->memo, call_variant, pos, min) : NULL;
        /* An entry computed inside a lookahead recorded no expectations; one with
         * recovered errors is used only in the same lookahead context. */
        if (m && ((m->flags & MEMO_GROWING) ||
                  ((!(m->flags & MEMO_SILENT) || p->silent) &&
                   (!m->rec_len || !(m->flags & MEMO_SILENT) == !p->silent)))) {
            st->memo_hits++;
            if (!(m->flags & MEMO_GROWING)) {
                if (m->examined > p->hw) p->hw = m->examined;
                for (uint32_t i = 0; i < m->exp_len; i++)
                    EXPECT(m->exp_far, p->memo.ids[m->exp_off + i]);
            }
            /* a growing seed carries the errors its round recovered, like any entry */
            if ((m->flags & MEMO_OK) && replay_recovered(p, m) < 0) goto oom;
            if (WATCHED && rt_trace_observe_hit(p, call_variant, pos, p->ngf + 1, call_level, m)) goto trace_abort;
            if (!(m->flags & MEMO_OK)) goto fail;
            pos = m->end;
#if !VM_RECOG
            if (call_variant < nrules) PUSH_VALUE(m->value);
#endif
            ip = code + call_ret;
            continue;
        }
        if (p->ngf == p->capgf && rt_buf_grow((void **)&p->gf, &p->capgf, p->ngf + 1, sizeof(vm_gframe)) < 0)
            goto oom;
        vm_gframe *gf = &p->gf[p->ngf];
        *gf = (vm_gframe){ .variant = call_variant, .pos = pos, .saved_far = p->exp.far,
                           .saved_base = p->exp.base, .memo = -1, .silent = p->silent > 0,
                           .leader = (f & RULE_LEADER) != 0, .memoize = (uint8_t)memoize,
                           .traced = WATCHED > 0, .body = call_entry, .saved_hw = p->hw,
                           .evals_start = st->evals, .level = min, .call_level = call_level,
                           .rec_start = p->nrec };
        if (gf->leader) {
            m = rt_memo_put(&p->memo, call_variant, pos, min, 2 * nrules);
            if (!m) goto oom;
            m->flags = MEMO_GROWING;
            m->exp_len = 0;
            m->rec_len = 0;
            gf->memo = (int32_t)(m - p->memo.entries);
        }
        PUSH_ENTRY(E_GCALL, call_ret);
        e->aux = call_variant;
        e->aux2 = p->ngf++;
        e->level = (uint16_t)call_level;
        p->exp.base = p->exp.n;
        p->exp.far = pos;
        p->hw = pos;
        if (++depth > max_depth) goto too_deep;
        st->evals++;
        ip = code + call_entry;
        continue;
    }

    general_return: {
        /* The body matched. A leader grows its seed while the body ends farther
         * than the best so far (language.md 2.2), then returns the best. */
        vm_gframe *gf = &p->gf[e->aux2];
        ret_value = VALUED && gf->variant < nrules ? p->vs[CUR_VS - 1] : VAL_NIL;
        if (gf->leader) {
            if (!gf->has_best || pos > gf->best_end) {
                rt_memo_entry *m = &p->memo.entries[gf->memo];
                m->flags = MEMO_OK | MEMO_GROWING;
                m->end = pos;
                m->value = ret_value;
                if (rt_memo_keep_recovered(&p->memo, m, RT_AT(p->rec, gf->rec_start), p->nrec - gf->rec_start) < 0)
                    goto oom;
                gf->has_best = 1;
                gf->best_end = pos;
                gf->best_value = ret_value;
                RESTORE_ENTRY(e);
                st->evals++;
                ip = code + gf->body;
                continue;
            }
            pos = gf->best_end;
            ret_value = gf->best_value;
            p->nrec = gf->rec_start;
            if (replay_recovered(p, &p->memo.entries[gf->memo]) < 0) goto oom;
        }
        goto general_success;
    }

    general_fail: {
        /* The body failed: a leader that grew a seed succeeds with it. */
        vm_gframe *gf = &p->gf[e->aux2];
        if (!(gf->leader && gf->has_best)) {
            int done = finish_call(p, gf, 0, pos, 0);
            if (done == FINISH_OOM) goto oom;
            if (done == FINISH_ABORT) goto trace_abort;
            p->ngf--;
            depth--;
            goto fail;
        }
        esn++;
        pos = gf->best_end;
        ret_value = gf->best_value;
        p->nrec = gf->rec_start;
        if (replay_recovered(p, &p->memo.entries[gf->memo]) < 0) goto oom;
        goto general_success;
    }

    general_success: {
        e = &es[esn - 1];
        vm_gframe *gf = &p->gf[e->aux2];
        int done = finish_call(p, gf, 1, pos, ret_value);
        if (done == FINISH_OOM) goto oom;
        if (done == FINISH_ABORT) goto trace_abort;
        p->ngf--;
        depth--;
        esn--;
        SET_VS(e->vs);
        SET_TN(e->trail);
#if !VM_RECOG
        if (gf->variant < nrules) PUSH_VALUE(ret_value);
#endif
        ip = code + e->ip;
        continue;
    }
    }

too_deep:
    FLUSH_CALLS();
    return rt_parse_abort(p, "nesting too deep: more than %u rule calls", p->max_depth);
trace_abort:
    FLUSH_CALLS();
    return rt_parse_abort(p, "parse aborted by a trace callback");
oom:
    FLUSH_CALLS();
    p->res.status = PEGO_ENOMEM;
    return rt_parse_abort(p, "out of memory");
#undef CASE
#undef FLUSH_CALLS
#undef NEXT
#undef PUSH_ENTRY
#undef PLAIN_CALL
#undef PUSH_VALUE
#undef PUSH_MATCH
#undef VALUED
#undef CUR_VS
#undef CUR_TN
#undef SET_VS
#undef SET_TN
#undef SET_LB
#undef CUR_REC
#undef SET_REC
#undef RESTORE_ENTRY
#undef SAVE_VALUES
#undef FILL_ENTRY
#undef CALL_FRAME
#undef FRAME_DEPTH
#undef NODE
#undef LOOKED
#undef EXPECT
#undef WATCHED
#undef MARK
#undef RESTORE
#undef PUSH_PARSE
#undef OPERATOR
}
