package io.faultline.sim;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A policy chosen by name with optional parameters, written {@code name} or
 * {@code name:param=value:param=value}: {@code lru}, {@code 2q:kin=0.25:kout=0.5},
 * {@code lirs:hir=0.01}, {@code segq:lead=0.1:trail=clock}. Names and parameter names are
 * case-insensitive; {@link #label()} keeps the text as given, for reports.
 *
 * @param name   the policy's registry name, lower case
 * @param label  the text as given
 * @param params parameter values as given, by lower-case parameter name, in the order written
 */
public record PolicySpec(String name, String label, Map<String, String> params)
{
    public PolicySpec
    {
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    /**
     * Parses and validates {@code text} against the {@link Policies} registry.
     *
     * @throws IllegalArgumentException for an unknown policy, an unknown, repeated or
     *                                  malformed parameter, or a value out of range
     */
    public static PolicySpec parse(final String text)
    {
        if (text == null || text.isBlank())
        {
            throw new IllegalArgumentException("empty policy; known policies: " + String.join(", ", Policies.names()));
        }
        final String label = text.trim();
        final String[] parts = label.split(":", -1);
        final String name = parts[0].trim().toLowerCase(Locale.ROOT);
        final Map<String, String> params = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++)
        {
            final String part = parts[i];
            final int eq = part.indexOf('=');
            final String param = (eq < 0 ? part : part.substring(0, eq)).trim().toLowerCase(Locale.ROOT);
            final String value = eq < 0 ? "" : part.substring(eq + 1).trim();
            if (eq <= 0 || param.isEmpty() || value.isEmpty())
            {
                Policies.checkKnown(name);
                throw new IllegalArgumentException("malformed parameter '" + part + "' in '" + label +
                    "': expected param=value; " + Policies.describeParameters(name));
            }
            if (params.put(param, value) != null)
            {
                throw new IllegalArgumentException("parameter '" + param + "' given twice in '" + label + "'");
            }
        }
        final PolicySpec spec = new PolicySpec(name, label, params);
        Policies.validate(spec);
        return spec;
    }

    /** The value of a numeric parameter, or {@code defaultValue} if it was not given. */
    public double doubleParam(final String param, final double defaultValue)
    {
        final String value = params.get(param);
        return value == null ? defaultValue : Double.parseDouble(value);
    }

    /** The value of a parameter, lower case, or {@code defaultValue} if it was not given. */
    public String stringParam(final String param, final String defaultValue)
    {
        final String value = params.get(param);
        return value == null ? defaultValue : value.toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString()
    {
        return label;
    }
}
