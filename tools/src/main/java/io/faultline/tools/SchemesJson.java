package io.faultline.tools;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import io.faultline.damon.Attributes;
import io.faultline.damon.schemes.Scheme;

/**
 * {@code faultline monitor --schemes FILE.json}: a list of schemes in the shape damo writes them
 * ({@code damo args damos --format json}; damo's Damos.to_kvpairs()): each an object with
 * {@code action}, {@code access_pattern} ({@code sz_bytes}, {@code nr_accesses}, {@code age},
 * each {@code {"min": .., "max": ..}}), {@code apply_interval_us}, {@code quotas}
 * ({@code time_ms}, {@code sz_bytes}, {@code reset_interval_ms}, {@code goals},
 * {@code weights}), {@code watermarks} and {@code filters}; or an object holding such a list
 * under {@code schemes}. A value is a JSON number, which counts what a plain number counts in
 * {@code --scheme} (bytes, samples, aggregation intervals), or a string in the {@code --scheme}
 * grammar ({@code "4K"}, {@code "10%"}, {@code "2s"}, {@code "max"}; spaces are ignored, so damo's
 * {@code "10 %"} and {@code "2 s"} read too). A missing field keeps damo's default (stat on every
 * region, no quota, no watermarks, no filters). damo's informational fields (stats, effective
 * quota, current goal values...) are ignored; any other unknown field is an error.
 */
final class SchemesJson
{
    private static final Set<String> IGNORED = Set.of("stats", "tried_regions", "tried_bytes", "effective_sz_bytes",
        "current_value", "nid", "memcg_path", "target_nid", "hugepage_size", "filter_pass");

    private SchemesJson()
    {
    }

    /**
     * @throws CliException naming the file, the place in it and the fix if it is not a list of schemes
     */
    static List<Scheme> read(final Path file, final Attributes attrs)
    {
        final JsonElement root;
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
            JsonReader reader = new JsonReader(in))
        {
            // Strict: a file that is not JSON must not be read as a lenient one's bare string.
            reader.setLenient(false);
            root = new Gson().getAdapter(JsonElement.class).read(reader);
            if (reader.peek() != JsonToken.END_DOCUMENT)
            {
                throw new JsonParseException("more after the JSON value at " + reader.getPath());
            }
        }
        catch (final IOException | JsonParseException | IllegalStateException ex)
        {
            if (ex instanceof java.nio.file.NoSuchFileException || ex instanceof java.nio.file.AccessDeniedException)
            {
                throw new CliException("--schemes: cannot read " + file + "; give a readable JSON file");
            }
            final String why = ex.getMessage() == null ? ex.toString() : ex.getMessage().lines().findFirst().orElse("");
            throw new CliException("--schemes: " + file + " is not JSON (" + why + "); give a JSON list of schemes"
                + " as damo writes them");
        }
        final JsonArray list;
        if (root.isJsonArray())
        {
            list = root.getAsJsonArray();
        }
        else if (root.isJsonObject() && root.getAsJsonObject().has("schemes")
            && root.getAsJsonObject().get("schemes").isJsonArray())
        {
            list = root.getAsJsonObject().getAsJsonArray("schemes");
        }
        else
        {
            throw new CliException("--schemes: " + file + " holds no list of schemes; give a JSON list [{\"action\":"
                + " \"pageout\", ...}] or an object with one under \"schemes\"");
        }
        final List<Scheme> schemes = new ArrayList<>();
        for (int i = 0; i < list.size(); i++)
        {
            try
            {
                if (!list.get(i).isJsonObject())
                {
                    throw new IllegalArgumentException("is not an object");
                }
                schemes.add(scheme(list.get(i).getAsJsonObject(), attrs));
            }
            catch (final IllegalArgumentException | IllegalStateException | UnsupportedOperationException ex)
            {
                throw new CliException("--schemes: " + file + ": scheme " + i + ": " + ex.getMessage());
            }
        }
        return schemes;
    }

    private static Scheme scheme(final JsonObject o, final Attributes attrs)
    {
        final SchemeSpec.Draft d = new SchemeSpec.Draft(attrs);
        d.action = SchemeSpec.action("stat");
        for (final Map.Entry<String, JsonElement> e : o.entrySet())
        {
            final JsonElement v = e.getValue();
            switch (e.getKey())
            {
                case "action" -> d.action = SchemeSpec.action(text(v));
                case "access_pattern" -> accessPattern(object(e.getKey(), v), d);
                case "apply_interval_us" -> d.applyIntervalUs = micros("apply_interval_us", v);
                case "quotas" -> quotas(object(e.getKey(), v), d);
                case "watermarks" -> watermarks(object(e.getKey(), v), d);
                case "filters" ->
                {
                    for (final JsonElement f : array(e.getKey(), v))
                    {
                        filter(object("filters", f), d);
                    }
                }
                default -> unknown(e.getKey());
            }
        }
        return d.build();
    }

    private static void unknown(final String key)
    {
        if (!IGNORED.contains(key))
        {
            throw new IllegalArgumentException("unknown field \"" + key + "\"");
        }
    }

    private static JsonObject object(final String key, final JsonElement v)
    {
        if (!v.isJsonObject())
        {
            throw new IllegalArgumentException("\"" + key + "\" must be an object");
        }
        return v.getAsJsonObject();
    }

    private static JsonArray array(final String key, final JsonElement v)
    {
        if (!v.isJsonArray())
        {
            throw new IllegalArgumentException("\"" + key + "\" must be a list");
        }
        return v.getAsJsonArray();
    }

    private static String text(final JsonElement v)
    {
        if (!v.isJsonPrimitive())
        {
            throw new IllegalArgumentException("expected a number or a string, not " + v);
        }
        return v.getAsString();
    }

    private static long micros(final String key, final JsonElement v)
    {
        final String t = text(v).trim();
        return t.chars().allMatch(Character::isDigit) && !t.isEmpty() ? Long.parseLong(t) : SchemeSpec.durationUs(key, t);
    }

    private static long millis(final String key, final JsonElement v)
    {
        final String t = text(v).trim();
        return t.chars().allMatch(Character::isDigit) && !t.isEmpty() ? Long.parseLong(t)
            : SchemeSpec.durationUs(key, t) / 1000;
    }

    private static long number(final String key, final JsonElement v)
    {
        final String t = text(v).trim();
        try
        {
            return Long.parseLong(t);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("\"" + key + "\" must be a whole number, not " + v);
        }
    }

    private static JsonElement[] minMax(final String key, final JsonObject o)
    {
        final JsonObject range = object(key, o.get(key));
        if (!range.has("min") || !range.has("max"))
        {
            throw new IllegalArgumentException("\"" + key + "\" needs \"min\" and \"max\"");
        }
        return new JsonElement[] {range.get("min"), range.get("max")};
    }

    private static void accessPattern(final JsonObject o, final SchemeSpec.Draft d)
    {
        for (final String key : o.keySet())
        {
            switch (key)
            {
                case "sz_bytes" ->
                {
                    final JsonElement[] r = minMax(key, o);
                    d.minSz = SchemeSpec.size(text(r[0]));
                    d.maxSz = SchemeSpec.size(text(r[1]));
                }
                case "nr_accesses" ->
                {
                    final JsonElement[] r = minMax(key, o);
                    d.minNrAccesses = SchemeSpec.nrAccesses(text(r[0]), d.attrs);
                    d.maxNrAccesses = SchemeSpec.nrAccesses(text(r[1]), d.attrs);
                }
                case "age" ->
                {
                    final JsonElement[] r = minMax(key, o);
                    d.minAge = SchemeSpec.age(text(r[0]), d.attrs);
                    d.maxAge = SchemeSpec.age(text(r[1]), d.attrs);
                }
                default -> unknown(key);
            }
        }
    }

    private static void quotas(final JsonObject o, final SchemeSpec.Draft d)
    {
        for (final Map.Entry<String, JsonElement> e : o.entrySet())
        {
            final JsonElement v = e.getValue();
            switch (e.getKey())
            {
                case "time_ms" -> d.quotaMs = millis("time_ms", v);
                case "sz_bytes" -> d.quotaSz = SchemeSpec.size(text(v));
                case "reset_interval_ms" -> d.quotaResetMs = millis("reset_interval_ms", v);
                case "weights" ->
                {
                    final JsonObject w = object("weights", v);
                    for (final String key : w.keySet())
                    {
                        final int value = (int)Math.min(number(key, w.get(key)), Integer.MAX_VALUE / 4);
                        switch (key)
                        {
                            case "sz_permil" -> d.weights[0] = value;
                            case "nr_accesses_permil" -> d.weights[1] = value;
                            case "age_permil" -> d.weights[2] = value;
                            default -> unknown(key);
                        }
                    }
                }
                case "goals" ->
                {
                    for (final JsonElement g : array("goals", v))
                    {
                        final JsonObject goal = object("goals", g);
                        if (!goal.has("metric") || !goal.has("target_value"))
                        {
                            throw new IllegalArgumentException("a goal needs \"metric\" and \"target_value\"");
                        }
                        d.goals.add(SchemeSpec.goal(text(goal.get("metric")), text(goal.get("target_value")),
                            goal.has("path") ? text(goal.get("path")) : null));
                    }
                }
                default -> unknown(e.getKey());
            }
        }
    }

    private static void watermarks(final JsonObject o, final SchemeSpec.Draft d)
    {
        for (final String key : o.keySet())
        {
            if (!Set.of("metric", "interval_us", "high_permil", "mid_permil", "low_permil").contains(key))
            {
                unknown(key);
            }
        }
        final String metric = o.has("metric") ? text(o.get("metric")) : "none";
        d.watermarks = SchemeSpec.watermarks(metric, o.has("interval_us") ? micros("interval_us", o.get("interval_us")) : 0,
            o.has("high_permil") ? number("high_permil", o.get("high_permil")) : 0,
            o.has("mid_permil") ? number("mid_permil", o.get("mid_permil")) : 0,
            o.has("low_permil") ? number("low_permil", o.get("low_permil")) : 0);
    }

    private static void filter(final JsonObject o, final SchemeSpec.Draft d)
    {
        for (final String key : o.keySet())
        {
            if (!Set.of("filter_type", "matching", "allow", "address_range", "damon_target_idx").contains(key))
            {
                unknown(key);
            }
        }
        if (!o.has("filter_type"))
        {
            throw new IllegalArgumentException("a filter needs \"filter_type\"");
        }
        final String type = text(o.get("filter_type"));
        final boolean matching = !o.has("matching") || o.get("matching").getAsBoolean();
        final boolean allow = o.has("allow") ? o.get("allow").getAsBoolean()
            : o.has("filter_pass") && o.get("filter_pass").getAsBoolean();
        String arg = null;
        if (type.equals("addr") && o.has("address_range") && o.get("address_range").isJsonObject())
        {
            final JsonObject r = o.getAsJsonObject("address_range");
            if (!r.has("start") || !r.has("end"))
            {
                throw new IllegalArgumentException("an address_range needs \"start\" and \"end\"");
            }
            arg = text(r.get("start")) + "-" + text(r.get("end"));
        }
        else if (type.equals("target") && o.has("damon_target_idx"))
        {
            arg = text(o.get("damon_target_idx"));
        }
        d.filters.add(SchemeSpec.filter(type, matching, allow, arg));
    }
}
