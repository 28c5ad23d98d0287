/* monoclock: a Lua module with one function, monoclock.ns(), the CLOCK_MONOTONIC time in
 * nanoseconds. bench/lpeg/json.lua times lpeg.match with it, so that LPeg is timed with
 * the same clock as the C drivers (Lua's own os.clock counts process CPU time).
 *
 *   cc -O2 -shared -fPIC -I/usr/include/lua5.4 monoclock.c -o monoclock.so */
#define _POSIX_C_SOURCE 200809L

#include <time.h>

#include <lauxlib.h>
#include <lua.h>

static int monoclock_ns(lua_State *L)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000000000 + (lua_Integer)ts.tv_nsec);
    return 1;
}

int luaopen_monoclock(lua_State *L)
{
    static const luaL_Reg functions[] = { { "ns", monoclock_ns }, { NULL, NULL } };
    luaL_newlib(L, functions);
    return 1;
}
