/* Gemini's credentials in recorded traffic: the x-goog-api-key header is
 * dropped and its value scrubbed wherever it appears again, and a key=
 * query parameter (the URL form Google also accepts) is blanked. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "redact.h"

#define KEY "AIzaSyD-gemini-test-0123456789abcdef"

Test(redact_gemini, goog_api_key_header_is_dropped)
{
    cr_assert(tw_redact_header_dropped(NULL, "x-goog-api-key"));
    cr_assert(tw_redact_header_dropped(NULL, "X-Goog-Api-Key"));
    cr_assert_not(tw_redact_header_dropped(NULL, "x-goog-api-client"));
}

Test(redact_gemini, header_value_and_key_query_are_scrubbed)
{
    tw_redactor r;
    memset(&r, 0, sizeof r);
    cr_assert_eq(tw_redact_discover_header(&r, "x-goog-api-key", KEY), TW_OK);
    const char *echo = "{\"error\":{\"message\":\"API key " KEY " not valid\"}}";
    char *out = tw_redact_str(&r, echo);
    cr_assert_not_null(out);
    cr_assert_null(strstr(out, KEY), "%s", out);
    cr_assert_not_null(strstr(out, TW_REDACTED), "%s", out);
    free(out);
    tw_redactor_free(&r);
    /* a key= query parameter, whatever a backend echoes it in */
    memset(&r, 0, sizeof r);
    const char *url = "https://generativelanguage.googleapis.com/v1beta/models/"
                      "gemini-2.5-flash:streamGenerateContent?alt=sse&key=" KEY;
    out = tw_redact_str(&r, url);
    cr_assert_not_null(out);
    cr_assert_null(strstr(out, KEY), "%s", out);
    cr_assert_not_null(strstr(out, "alt=sse"), "the other parameters stay: %s", out);
    free(out);
    tw_redactor_free(&r);
}
