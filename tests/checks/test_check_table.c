/* The check table (harness/checks/check_table.c) and the families each format runs. */
#include <criterion/criterion.h>
#include <string.h>

#include "checks_int.h"

/* every API of the table of formats, and a path of none */
static const tw_api_kind KINDS[] = {
#define X_KIND(ID, ...) TW_API_##ID,
    TW_API_TABLE(X_KIND)
#undef X_KIND
        TW_API_NONE};

Test(check_table, every_family_has_a_name_a_rule_and_a_function_once)
{
    size_t n;
    const tw_check_family_def *t = tw_check_families(&n);
    cr_assert_geq(n, 9);
    for (size_t i = 0; i < n; i++) {
        cr_assert(t[i].name && t[i].name[0], "row %zu has no name", i);
        cr_assert(t[i].judges && t[i].judges[0], "%s says not what it judges", t[i].name);
        cr_assert_not_null(t[i].judge, "%s has no function", t[i].name);
        cr_assert_eq(tw_check_family_find(t[i].name), &t[i], "%s is not found by its name",
                     t[i].name);
        for (size_t k = 0; k < i; k++)
            cr_assert_str_neq(t[k].name, t[i].name, "%s is registered twice", t[i].name);
    }
    cr_assert_null(tw_check_family_find("no-such-family"));
    cr_assert_null(tw_check_family_find(NULL));
}

Test(check_table, every_format_names_families_of_the_table_and_each_is_run)
{
    size_t n;
    const tw_check_family_def *t = tw_check_families(&n);
    bool used[64] = {false};
    cr_assert_leq(n, sizeof used / sizeof used[0]);
    for (size_t k = 0; k < sizeof KINDS / sizeof KINDS[0]; k++) {
        const char *const *f = tw_checks_families_of(KINDS[k]);
        cr_assert(f && f[0], "kind '%c' runs no family", KINDS[k] ? KINDS[k] : '0');
        for (size_t i = 0; f[i]; i++) {
            const tw_check_family_def *d = tw_check_family_find(f[i]);
            cr_assert_not_null(d, "kind '%c' names %s, which the check table lacks",
                               KINDS[k] ? KINDS[k] : '0', f[i]);
            used[d - t] = true;
        }
    }
    for (size_t i = 0; i < n; i++)
        cr_assert(used[i], "%s is run for no format", t[i].name);
    /* a path of no known API is judged as an unknown endpoint */
    cr_assert_eq(tw_checks_families_of((tw_api_kind)'x'), tw_checks_families_of(0));
}
