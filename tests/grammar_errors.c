/* The errors of a grammar as text (tests/grammar_errors.h). */
#include "grammar_errors.h"
#include "../runtime/buf.h"

char *grammar_errors_text(const cc_errors *e)
{
    rt_buf b;
    rt_buf_init(&b);
    for (int i = 0; i < e->n; i++)
        rt_buf_printf(&b, "%s%d:%d: %s", i ? "\n" : "", e->items[i].line, e->items[i].col, e->items[i].msg);
    return rt_buf_take(&b);
}
