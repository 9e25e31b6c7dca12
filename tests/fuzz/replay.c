/* Runs a fuzz target over the files named on the command line, or every
 * file in the directories named, so the seed corpora are checked by every
 * build (the sanitizer build too), whatever the compiler: libFuzzer itself
 * needs clang. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        perror(path);
        return -1;
    }
    unsigned char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, 1 << 20, fp) : 0;
    fclose(fp);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            DIR *d = opendir(argv[i]);
            for (struct dirent *e; d && (e = readdir(d));) {
                if (e->d_name[0] == '.') continue;
                char path[4096];
                snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
                if (replay_file(path)) return 1;
                count++;
            }
            if (d) closedir(d);
        } else if (replay_file(argv[i])) {
            return 1;
        } else {
            count++;
        }
    }
    printf("replayed %d inputs\n", count);
    return count > 0 ? 0 : 1;
}
