//! The dates and the stamp an iCalendar feed writes: civil dates of the proleptic Gregorian
//! calendar, years 1 to 9999 (the four digits of a DATE value), and a UTC time.

use std::fmt;

/// A calendar date, as an event's first and last days are given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CalendarDate {
    year: u16,
    month: u8,
    day: u8,
}

impl CalendarDate {
    /// The date, if it exists: years 1 to 9999, February 29 in leap years only.
    pub fn new(year: i32, month: u32, day: u32) -> Option<CalendarDate> {
        let year = u16::try_from(year)
            .ok()
            .filter(|y| (1..=9999).contains(y))?;
        let month = u8::try_from(month).ok().filter(|m| (1..=12).contains(m))?;
        let day = u8::try_from(day).ok()?;
        (1..=days_in_month(year, month))
            .contains(&day)
            .then_some(CalendarDate { year, month, day })
    }

    pub fn year(self) -> u16 {
        self.year
    }

    pub fn month(self) -> u8 {
        self.month
    }

    pub fn day(self) -> u8 {
        self.day
    }

    /// The next day; none after 9999-12-31.
    pub fn day_after(self) -> Option<CalendarDate> {
        from_day_number(day_number(self) + 1)
    }

    /// How many days after `earlier` this date is (negative when before).
    pub(super) fn days_since(self, earlier: CalendarDate) -> i64 {
        day_number(self) - day_number(earlier)
    }
}

/// `YYYYMMDD`, an iCalendar DATE value.
impl fmt::Display for CalendarDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}{:02}{:02}", self.year, self.month, self.day)
    }
}

/// A moment in UTC, to the second: when a feed was made (its DTSTAMP).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UtcStamp {
    date: CalendarDate,
    seconds_of_day: u32,
}

impl UtcStamp {
    /// The moment `seconds` after 1970-01-01T00:00:00Z (negative: before), within years 1 to
    /// 9999.
    pub fn from_unix_seconds(seconds: i64) -> Option<UtcStamp> {
        let days = seconds.div_euclid(86_400);
        let seconds_of_day = u32::try_from(seconds.rem_euclid(86_400)).ok()?;
        let epoch = day_number(CalendarDate {
            year: 1970,
            month: 1,
            day: 1,
        });
        Some(UtcStamp {
            date: from_day_number(epoch.checked_add(days)?)?,
            seconds_of_day,
        })
    }
}

/// `YYYYMMDDTHHMMSSZ`, an iCalendar DATE-TIME value in UTC.
impl fmt::Display for UtcStamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (hours, rest) = (self.seconds_of_day / 3600, self.seconds_of_day % 3600);
        write!(
            f,
            "{}T{:02}{:02}{:02}Z",
            self.date,
            hours,
            rest / 60,
            rest % 60
        )
    }
}

fn is_leap(year: u16) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 0000-03-01 of the proleptic Gregorian calendar (a year counted from March, so
/// that February's leap day ends it): the civil-days algorithm of H. Hinnant.
fn day_number(date: CalendarDate) -> i64 {
    let (month, day) = (i64::from(date.month), i64::from(date.day));
    let year = i64::from(date.year) - i64::from(month <= 2);
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * ((month + 9) % 12) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era
}

/// The date of a [`day_number`], within years 1 to 9999.
fn from_day_number(number: i64) -> Option<CalendarDate> {
    let era = number.div_euclid(146_097);
    let day_of_era = number - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    CalendarDate::new(
        i32::try_from(year).ok()?,
        u32::try_from(month).ok()?,
        u32::try_from(day).ok()?,
    )
}
