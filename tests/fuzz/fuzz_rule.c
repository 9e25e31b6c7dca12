/* libFuzzer target for rule strings (B/S, S/B, Golly ":T"/":P" suffixes)
 * and boundary names. A rule that parses must format to text that parses
 * back to the same rule, and a Golly suffix to the same grid. */
#include <assert.h>
#include <string.h>

#include "fuzz_text.h"
#include "base/rule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    tdcl_life_rule r, back;
    tdcl_life_topology topo;
    tdcl_life_boundary b;
    tdcl_err e;
    char buf[64];
    if (tdcl_life_rule_parse(text, &r, &topo, &e) == TDCL_OK) {
        assert(r.birth < 512 && r.survive < 512);
        if (topo.present) assert(topo.width >= 0 && topo.height >= 0);
        tdcl_life_rule_format(&r, buf, sizeof buf);
        assert(tdcl_life_rule_parse(buf, &back, NULL, &e) == TDCL_OK);
        assert(back.birth == r.birth && back.survive == r.survive && back.nbhd == r.nbhd);
        if (topo.present) { /* Golly's suffix formats and parses back to the same grid */
            char full[160];
            tdcl_life_topology t2;
            size_t n = strlen(buf);
            tdcl_life_topology_format(topo.boundary, &topo.edges, topo.width, topo.height, full + n,
                                      sizeof full - n);
            memcpy(full, buf, n);
            assert(tdcl_life_rule_parse(full, &back, &t2, &e) == TDCL_OK);
            assert(t2.boundary == topo.boundary && t2.width == topo.width &&
                   t2.height == topo.height);
            assert(memcmp(&t2.edges, &topo.edges, sizeof t2.edges) == 0);
        }
    }
    (void)tdcl_life_rule_parse(text, &r, NULL, NULL);
    (void)tdcl_life_rule_parse(text, &r, &topo, NULL);
    (void)tdcl_life_boundary_parse(text, &b);
    free(text);
    return 0;
}
